package dev.turnstile.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.turnstile.rental.RentalTables;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.WithDefault;
import software.amazon.awssdk.http.SdkHttpConfigurationOption;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.Projection;

/**
 * Reads deploy/lambda/template.yaml as CloudFormation does and checks it against the code: the tables are the ones
 * {@link RentalTables} creates in dev and test, the function gets their names and the lambda profile, IAM grants
 * exactly the item actions on exactly those tables, and application.properties' prod,lambda settings fit inside the
 * function's timeout.
 */
class LambdaTemplateTest {

    private static final Map<String, Object> TEMPLATE = DeployFiles.cloudFormation(DeployFiles.ROOT.resolve("lambda/template.yaml"));
    private static final Set<String> ITEM_ACTIONS = Set.of("dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
            "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem");
    private static final Set<String> ALL_ACTIONS = union(ITEM_ACTIONS,
            Set.of("dynamodb:Query", "dynamodb:DescribeTable"));
    private static final Map<String, String> TABLE_ENV = Map.of(
            "bikes", "TURNSTILE_RENTAL_TABLES_BIKES", "customers", "TURNSTILE_RENTAL_TABLES_CUSTOMERS",
            "rentals", "TURNSTILE_RENTAL_TABLES_RENTALS", "idempotency", "TURNSTILE_RENTAL_TABLES_IDEMPOTENCY");

    @Test
    void isASamTemplateWhoseReferencesAllResolve() {
        assertEquals("AWS::Serverless-2016-10-31", TEMPLATE.get("Transform"));
        Set<String> known = new HashSet<>(map(TEMPLATE.get("Parameters")).keySet());
        known.addAll(resources().keySet());
        List<String> references = new ArrayList<>();
        collectReferences(TEMPLATE.get("Resources"), references);
        collectReferences(TEMPLATE.get("Outputs"), references);
        for (String reference : references) {
            assertTrue(reference.startsWith("AWS::") || known.contains(reference), "unresolved reference " + reference);
        }
        Set<String> conditions = map(TEMPLATE.get("Conditions")).keySet();
        List<String> used = new ArrayList<>();
        collectConditions(TEMPLATE.get("Resources"), used);
        assertTrue(conditions.containsAll(used), "conditions used " + used + ", defined " + conditions);
    }

    @Test
    void tablesAreTheOnesTheCodeUses() {
        for (String table : TABLE_ENV.keySet()) {
            CreateTableRequest expected = definition(table);
            Map<String, Object> properties = properties(tableResource(table));
            assertEquals("PAY_PER_REQUEST", properties.get("BillingMode"), table);
            assertEquals(keySchema(expected.keySchema()), properties.get("KeySchema"), table);
            assertEquals(expected.attributeDefinitions().stream()
                    .map(a -> Map.of("AttributeName", a.attributeName(), "AttributeType", a.attributeTypeAsString())).toList(),
                    properties.get("AttributeDefinitions"), table);
            // A secondary index the code creates in dev/test must exist in production too, with the same keys.
            List<Map<String, Object>> indexes = expected.globalSecondaryIndexes().stream()
                    .map(i -> Map.<String, Object>of("IndexName", i.indexName(), "KeySchema", keySchema(i.keySchema()),
                            "Projection", projection(i.projection())))
                    .toList();
            assertEquals(indexes, properties.getOrDefault("GlobalSecondaryIndexes", List.of()), table + " indexes");
            String prefix = (String) map(map(TEMPLATE.get("Parameters")).get("TableNamePrefix")).get("Default");
            String name = ((String) map(properties.get("TableName")).get("Fn::Sub")).replace("${TableNamePrefix}", prefix);
            assertEquals(defaultName(table), name, "default table name matches turnstile.rental.tables." + table);
        }
        Map<String, Object> ttl = map(properties(tableResource("idempotency")).get("TimeToLiveSpecification"));
        assertEquals("expiresAt", ttl.get("AttributeName"));
        assertEquals(Boolean.TRUE, ttl.get("Enabled"));
    }

    @Test
    void functionIsConfiguredFromParametersAndGetsTheLambdaProfile() {
        Map<String, Object> function = properties(resources().get("TurnstileFunction"));
        assertEquals(List.of(Map.of("Ref", "Architecture")), function.get("Architectures"));
        assertEquals("arm64", map(map(TEMPLATE.get("Parameters")).get("Architecture")).get("Default"));
        assertEquals(Map.of("Ref", "MemorySize"), function.get("MemorySize"));
        assertEquals(Map.of("Ref", "Timeout"), function.get("Timeout"));
        assertEquals(Map.of("Ref", "ReservedConcurrency"), function.get("ReservedConcurrentExecutions"));
        assertEquals("../../target/function.zip", function.get("CodeUri"));
        assertEquals(Map.of("Fn::If", List.of("IsNative", "provided.al2023", "java21")), function.get("Runtime"));
        assertEquals("io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler::handleRequest",
                ((List<?>) map(function.get("Handler")).get("Fn::If")).get(2));

        Map<String, Object> env = map(map(function.get("Environment")).get("Variables"));
        assertEquals("prod,lambda", env.get("QUARKUS_PROFILE"));
        TABLE_ENV.forEach((table, variable) -> assertEquals(Map.of("Ref", tableResourceName(table)), env.get(variable), variable));
        assertEquals(Map.of("Ref", "DatabaseUrl"), env.get("QUARKUS_DATASOURCE_REACTIVE_URL"));
        // the DatabaseUrl the template suggests is RDS Proxy: without these every session was pinned
        assertEquals("true", map(map(TEMPLATE.get("Parameters")).get("DatabaseBehindProxy")).get("Default"));
        assertEquals(Map.of("Ref", "DatabaseBehindProxy"), env.get("QUARKUS_DATASOURCE_REACTIVE_POSTGRESQL_USE_LAYER7_PROXY"));
        assertEquals(Map.of("Fn::If", List.of("BehindProxy", "false", Map.of("Ref", "AWS::NoValue"))),
                env.get("QUARKUS_DATASOURCE_REACTIVE_CACHE_PREPARED_STATEMENTS"));
        for (String secret : List.of("QUARKUS_DATASOURCE_USERNAME", "QUARKUS_DATASOURCE_PASSWORD")) {
            assertTrue(((String) map(env.get(secret)).get("Fn::Sub")).startsWith("{{resolve:secretsmanager:${DatabaseSecretArn}"),
                    secret + " is a Secrets Manager dynamic reference");
        }
        assertFalse(env.containsKey("AWS_REGION"), "AWS_REGION is reserved: Lambda sets it");
    }

    @Test
    void iamGrantsOnlyItemActionsOnTheTurnstileTables() {
        List<Map<String, Object>> statements = new ArrayList<>();
        for (Object policy : (List<?>) properties(resources().get("TurnstileFunction")).get("Policies")) {
            Map<String, Object> document = map(policy);
            if (document.containsKey("Statement")) {
                ((List<?>) document.get("Statement")).forEach(s -> statements.add(map(s)));
            } else {
                assertEquals(List.of("InVpc", "AWSLambdaVPCAccessExecutionRole", Map.of("Ref", "AWS::NoValue")),
                        document.get("Fn::If"), "the only managed policy is the VPC one, and only in a VPC");
            }
        }
        Set<String> granted = new TreeSet<>();
        Map<String, Set<String>> actionsByTable = new java.util.HashMap<>();
        for (Map<String, Object> statement : statements) {
            assertEquals("Allow", statement.get("Effect"));
            List<String> actions = strings(statement.get("Action"));
            granted.addAll(actions);
            for (Object resource : (List<?>) statement.get("Resource")) {
                String table = tableOf(resource);
                actionsByTable.computeIfAbsent(table, t -> new TreeSet<>()).addAll(actions);
            }
        }
        assertEquals(new TreeSet<>(ALL_ACTIONS), granted, "exactly the actions Turnstile issues");
        for (String table : TABLE_ENV.keySet()) {
            assertTrue(actionsByTable.get(tableResourceName(table)).containsAll(ITEM_ACTIONS),
                    table + ": every item action TransactWriteItems may need");
        }
        assertTrue(actionsByTable.get(tableResourceName("bikes")).contains("dynamodb:DescribeTable"), "readiness");
        assertEquals(Set.of("dynamodb:Query"), actionsByTable.get(tableResourceName("bikes") + "/" + RentalTables.STATION_INDEX),
                "listings query the station index, and nothing else may be queried or scanned");
    }

    @Test
    void onlyTheApiRoutesArePublic() {
        Map<String, Object> events = map(properties(resources().get("TurnstileFunction")).get("Events"));
        Set<String> paths = new TreeSet<>();
        for (Object event : events.values()) {
            assertEquals("HttpApi", map(event).get("Type"));
            Map<String, Object> properties = map(map(event).get("Properties"));
            assertEquals(Map.of("Ref", "HttpApi"), properties.get("ApiId"));
            paths.add((String) properties.get("Path"));
        }
        assertEquals(new TreeSet<>(List.of("/bikes", "/bikes/{proxy+}", "/flights/{proxy+}", "/bookings/{proxy+}")), paths);
        assertEquals("AWS::Serverless::HttpApi", map(resources().get("HttpApi")).get("Type"));
    }

    /**
     * The gateway's JWT authorizer guards every route, and the function is told the same issuer, audience and keys, so
     * it verifies the token again instead of trusting the gateway (docs/identity.md).
     */
    @Test
    void everyRouteGoesThroughTheJwtAuthorizerAndTheFunctionVerifiesTheTokenToo() {
        Map<String, Object> parameters = map(TEMPLATE.get("Parameters"));
        for (String parameter : List.of("IdentityIssuer", "IdentityAudience", "IdentityJwksUrl")) {
            assertEquals("String", map(parameters.get(parameter)).get("Type"), parameter);
            assertFalse(map(parameters.get(parameter)).containsKey("Default"), parameter + " has no default: each stack names its provider");
        }

        Map<String, Object> auth = map(properties(resources().get("HttpApi")).get("Auth"));
        String authorizerName = (String) auth.get("DefaultAuthorizer");
        Map<String, Object> authorizer = map(map(auth.get("Authorizers")).get(authorizerName));
        assertEquals("$request.header.Authorization", authorizer.get("IdentitySource"));
        Map<String, Object> jwt = map(authorizer.get("JwtConfiguration"));
        assertEquals(Map.of("Ref", "IdentityIssuer"), jwt.get("issuer"));
        assertEquals(List.of(Map.of("Ref", "IdentityAudience")), jwt.get("audience"));

        Map<String, Object> events = map(properties(resources().get("TurnstileFunction")).get("Events"));
        assertFalse(events.isEmpty());
        events.forEach((name, event) -> {
            Map<String, Object> properties = map(map(event).get("Properties"));
            assertEquals(Map.of("Ref", "HttpApi"), properties.get("ApiId"), name + " is a route of the guarded API");
            assertFalse(properties.containsKey("Auth"), name + " keeps the default authorizer (no per-route override)");
        });

        Map<String, Object> env = map(map(properties(resources().get("TurnstileFunction")).get("Environment")).get("Variables"));
        assertEquals(Map.of("Ref", "IdentityIssuer"), env.get("TURNSTILE_IDENTITY_ISSUER"));
        assertEquals(Map.of("Ref", "IdentityAudience"), env.get("TURNSTILE_IDENTITY_AUDIENCE"));
        assertEquals(Map.of("Ref", "IdentityJwksUrl"), env.get("TURNSTILE_IDENTITY_PUBLIC_KEY_LOCATION"));
    }

    @Test
    void lambdaProfileFitsInsideTheFunctionTimeout() throws IOException {
        SmallRyeConfig lambda = ApplicationProperties.under("prod", "lambda");
        assertEquals(1, lambda.getValue("quarkus.datasource.reactive.max-size", Integer.class));
        assertFalse(lambda.getValue("turnstile.booking.ticketing.enabled", Boolean.class), "no ticket workers in Lambda");
        assertTrue(ApplicationProperties.duration(lambda, "quarkus.datasource.reactive.idle-timeout").toSeconds() <= 60);
        long timeout = Long.parseLong(String.valueOf(map(map(TEMPLATE.get("Parameters")).get("Timeout")).get("Default")));
        long minimum = Long.parseLong(String.valueOf(map(map(TEMPLATE.get("Parameters")).get("Timeout")).get("MinValue")));
        Duration dynamo = ApplicationProperties.duration(lambda, "quarkus.dynamodb.api-call-timeout");
        assertTrue(dynamo.toSeconds() < minimum && minimum <= timeout,
                "a DynamoDB call (" + dynamo + ") gives up before the shortest allowed function timeout (" + minimum + " s)");
        assertTrue(ApplicationProperties.duration(lambda, "quarkus.dynamodb.api-call-attempt-timeout").compareTo(dynamo) < 0);

        SmallRyeConfig prod = ApplicationProperties.under("prod");
        assertTrue(prod.getOptionalValue("quarkus.dynamodb.async-client.connection-acquisition-timeout", String.class).isEmpty(),
                "amazon-services does not hand the acquisition timeout to aws-crt; api-call-attempt-timeout bounds the wait");
        // aws-crt then waits for a pooled connection as long as the SDK's default acquisition timeout: the attempt
        // timeout must end that wait first, or the bound docs/ship.md names would not be the one that applies.
        Duration crtAcquisition = SdkHttpConfigurationOption.GLOBAL_HTTP_DEFAULTS.get(SdkHttpConfigurationOption.CONNECTION_ACQUIRE_TIMEOUT);
        assertTrue(ApplicationProperties.duration(prod, "quarkus.dynamodb.api-call-attempt-timeout").compareTo(crtAcquisition) < 0,
                "api-call-attempt-timeout is shorter than aws-crt's own acquisition wait (" + crtAcquisition + ")");
        assertNotEquals(1, prod.getValue("quarkus.datasource.reactive.max-size", Integer.class), "pods keep a real pool");
        for (SmallRyeConfig profile : List.of(prod, lambda)) {
            assertFalse(profile.getOptionalValue("turnstile.local-postgres.prepare", Boolean.class).orElse(false), "no migration");
            assertFalse(profile.getOptionalValue("turnstile.rental.create-missing-tables", Boolean.class).orElse(false), "no tables");
            assertFalse(profile.getOptionalValue("turnstile.local-dynamodb.enabled", Boolean.class).orElse(false), "no dynalite");
        }
    }

    /**
     * The native function runs on provided.al2023 (glibc) and loads aws-crt's JNI library from beside its bootstrap.
     * Quarkus' Lambda build adds every {@code target/*.so} the native build left next to the executable to
     * function.zip, and the CRT's GraalVM feature leaves the library there for the build machine's architecture: so
     * each architecture the template offers needs a glibc library in the aws-crt jar the BOM brings, and
     * src/main/zip.native must neither carry a second copy (a duplicate zip entry) nor replace the bootstrap.
     */
    @Test
    void nativeFunctionZipCanCarryTheCrtLibraryForEachArchitecture() {
        Map<String, String> crtArchitecture = Map.of("x86_64", "x86_64", "arm64", "armv8");
        Map<String, Object> function = properties(resources().get("TurnstileFunction"));
        assertEquals("provided.al2023", ((List<?>) map(function.get("Runtime")).get("Fn::If")).get(1), "native runtime");
        for (String architecture : strings(map(map(TEMPLATE.get("Parameters")).get("Architecture")).get("AllowedValues"))) {
            String library = "linux/" + crtArchitecture.get(architecture) + "/glibc/libaws-crt-jni.so";
            // A resource lookup: touching the CRT class itself would load the library into the test JVM.
            assertNotNull(LambdaTemplateTest.class.getClassLoader().getResource(library), "the aws-crt jar has " + library);
        }
        Path zipNative = Path.of("src/main/zip.native");
        assertFalse(Files.exists(zipNative.resolve("bootstrap")), "the native executable stays the bootstrap");
        assertFalse(Files.exists(zipNative.resolve("libaws-crt-jni.so")), "the build adds target/*.so itself");
    }

    private static CreateTableRequest definition(String table) {
        RentalTables named = new RentalTables() {
            public String bikes() {
                return "bikes";
            }

            public String customers() {
                return "customers";
            }

            public String rentals() {
                return "rentals";
            }

            public String idempotency() {
                return "idempotency";
            }
        };
        return named.definitions().stream().filter(d -> d.tableName().equals(table)).findFirst().orElseThrow();
    }

    private static List<Map<String, Object>> keySchema(List<KeySchemaElement> keys) {
        return keys.stream().map(k -> Map.<String, Object>of("AttributeName", k.attributeName(), "KeyType", k.keyTypeAsString())).toList();
    }

    private static Map<String, Object> projection(Projection projection) {
        return projection.hasNonKeyAttributes()
                ? Map.of("ProjectionType", projection.projectionTypeAsString(), "NonKeyAttributes", projection.nonKeyAttributes())
                : Map.of("ProjectionType", projection.projectionTypeAsString());
    }

    static String defaultName(String table) {
        try {
            return RentalTables.class.getMethod(table).getAnnotation(WithDefault.class).value();
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    private static String tableResourceName(String table) {
        return Character.toUpperCase(table.charAt(0)) + table.substring(1) + "Table";
    }

    private static Map<String, Object> tableResource(String table) {
        Map<String, Object> resource = map(resources().get(tableResourceName(table)));
        assertEquals("AWS::DynamoDB::Table", resource.get("Type"));
        return resource;
    }

    /** The table a policy resource points at: {@code !GetAtt XTable.Arn} or {@code !Sub "${XTable.Arn}/index/name"} (as XTable/name). */
    private static String tableOf(Object resource) {
        assertFalse("*".equals(resource), "no wildcard resource");
        Map<String, Object> reference = map(resource);
        if (reference.containsKey("Fn::GetAtt")) {
            assertEquals("Arn", ((List<?>) reference.get("Fn::GetAtt")).get(1));
            return (String) ((List<?>) reference.get("Fn::GetAtt")).get(0);
        }
        Matcher index = Pattern.compile("\\$\\{(\\w+)\\.Arn}/index/([\\w-]+)").matcher((String) reference.get("Fn::Sub"));
        assertTrue(index.matches(), "resource " + resource);
        return index.group(1) + "/" + index.group(2);
    }

    private static void collectReferences(Object node, List<String> into) {
        if (node instanceof Map<?, ?> entries) {
            entries.forEach((key, value) -> {
                if ("Ref".equals(key)) {
                    into.add((String) value);
                } else if ("Fn::GetAtt".equals(key)) {
                    into.add((String) ((List<?>) value).get(0));
                } else if ("Fn::Sub".equals(key) && value instanceof String text) {
                    Matcher variable = Pattern.compile("\\$\\{([\\w:]+)(\\.\\w+)?}").matcher(text);
                    while (variable.find()) {
                        into.add(variable.group(1));
                    }
                }
                collectReferences(value, into);
            });
        } else if (node instanceof List<?> items) {
            items.forEach(i -> collectReferences(i, into));
        }
    }

    private static void collectConditions(Object node, List<String> into) {
        if (node instanceof Map<?, ?> entries) {
            entries.forEach((key, value) -> {
                if ("Fn::If".equals(key)) {
                    into.add((String) ((List<?>) value).get(0));
                }
                collectConditions(value, into);
            });
        } else if (node instanceof List<?> items) {
            items.forEach(i -> collectConditions(i, into));
        }
    }

    private static Map<String, Object> resources() {
        return map(TEMPLATE.get("Resources"));
    }

    private static Map<String, Object> properties(Object resource) {
        return map(map(resource).get("Properties"));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        assertNotNull(value);
        assertTrue(value instanceof Map, "expected a mapping, got " + value);
        return (Map<String, Object>) value;
    }

    private static List<String> strings(Object value) {
        return ((List<?>) value).stream().map(String.class::cast).toList();
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }
}
