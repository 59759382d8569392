package dev.turnstile.observability;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.turnstile.LambdaMode;
import dev.turnstile.Management;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * deploy/observability/turnstile-dashboard.json is built from the service's metric names: after one rent and one
 * booking, every metric a panel queries is at /q/metrics. A renamed meter fails here rather than as an empty panel.
 */
@QuarkusTest
class DashboardMetricsTest {

    static final Path DASHBOARD = Path.of("deploy/observability/turnstile-dashboard.json");
    /** A PromQL metric name: an identifier not followed by "(" (a function) and not a label, keyword or duration. */
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Set<String> PROMQL_WORDS = Set.of("sum", "rate", "irate", "increase", "by", "without", "histogram_quantile",
            "max", "min", "avg", "count", "le", "on", "ignoring", "group_left", "group_right", "and", "or", "unless", "clamp_min",
            "topk", "label_replace", "sum_over_time", "avg_over_time", "max_over_time", "offset", "bool", "vector", "scalar");

    @Test
    void everyMetricTheDashboardQueriesIsPublishedAfterARentAndABooking() throws IOException {
        // The dashboard is for the pod (its request panels read the Vert.x HTTP server's meters); a Lambda has no HTTP server.
        Assumptions.assumeFalse(LambdaMode.active(), "under -Plambda requests reach the app without the Vert.x HTTP server and its meters");
        rentOneBike();
        bookOneSeat();

        Set<String> published = publishedNames();
        Set<String> queried = queriedNames();
        assertFalse(queried.isEmpty(), "the dashboard queries metrics");
        Set<String> missing = new TreeSet<>(queried);
        missing.removeAll(published);
        assertEquals(Set.of(), missing, "queried by " + DASHBOARD + " but not at /q/metrics");
    }

    @Test
    void theDashboardIsGrafanaJsonWithPanelsThatQueryPrometheus() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        assertTrue(dashboard.path("title").isTextual());
        assertTrue(dashboard.path("panels").size() > 0);
        for (JsonNode panel : panels(dashboard)) {
            assertTrue(panel.path("targets").size() > 0, "panel " + panel.path("title") + " has a query");
        }
    }

    private static void rentOneBike() {
        String bikeId = "b-" + UUID.randomUUID().toString().substring(0, 8);
        asStaff().contentType(ContentType.JSON).body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\"}")
                .post("/bikes").then().statusCode(201);
        asStaff().contentType(ContentType.JSON).body("{\"customerId\":\"c-dash\"}").post("/bikes/" + bikeId + "/rent")
                .then().statusCode(200);
    }

    private static void bookOneSeat() {
        String flight = "DASH-" + UUID.randomUUID();
        asStaff().contentType(ContentType.JSON).body("{\"seats\":2,\"eliteReserve\":0,\"shards\":1}")
                .put("/flights/" + flight + "/fares/Y").then().statusCode(201);
        asStaff().contentType(ContentType.JSON).body("{\"passengerId\":\"p-dash\"}")
                .post("/flights/" + flight + "/fares/Y/bookings").then().statusCode(201);
    }

    /** Metric names at /q/metrics, as Prometheus stores them (a histogram's _bucket, _count and _sum included). */
    private static Set<String> publishedNames() {
        String text = Management.given().get("/q/metrics").then().statusCode(200).extract().asString();
        return text.lines().filter(line -> !line.startsWith("#") && !line.isBlank())
                .map(line -> line.split("[{ ]", 2)[0]).collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> queriedNames() throws IOException {
        Set<String> names = new TreeSet<>();
        for (JsonNode panel : panels(new ObjectMapper().readTree(DASHBOARD.toFile()))) {
            for (JsonNode target : panel.path("targets")) {
                names.addAll(metricNames(target.path("expr").asText()));
            }
        }
        return names;
    }

    /** The metric names of a PromQL expression: label matchers, strings, durations and functions left out. */
    static Set<String> metricNames(String expr) {
        String bare = expr.replaceAll("\\{[^}]*\\}", " ").replaceAll("\\[[^\\]]*\\]", " ")
                .replaceAll("\"[^\"]*\"", " ").replaceAll("(by|without)\\s*\\([^)]*\\)", " ");
        Set<String> names = new TreeSet<>();
        Matcher matcher = NAME.matcher(bare);
        while (matcher.find()) {
            String word = matcher.group();
            int after = matcher.end();
            boolean function = after < bare.length() && bare.substring(after).stripLeading().startsWith("(");
            if (!function && !PROMQL_WORDS.contains(word) && !Character.isDigit(word.charAt(0))) {
                names.add(word);
            }
        }
        return names;
    }

    private static List<JsonNode> panels(JsonNode dashboard) {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode panel : dashboard.path("panels")) {
            all.add(panel);
            panel.path("panels").forEach(all::add);
        }
        return all.stream().filter(panel -> !panel.path("type").asText().equals("row")).toList();
    }
}
