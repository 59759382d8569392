package dev.turnstile.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarFile;

import org.junit.jupiter.api.Test;

/**
 * JDK 24 and later print a warning when code on the class path loads a JNI library (JEP 472), and a later JDK
 * is to refuse the call: aws-crt loads its JNI library with {@code System.loadLibrary} when the DynamoDB client is
 * first used, and the image runs JDK 25. The runner jar's manifest enables native access for the class path
 * ({@code Enable-Native-Access: ALL-UNNAMED}, the only value the JDK accepts there), so {@code java -jar} needs no
 * flag. Starts the packaged jar on a JDK 25 (skipped when the machine has none, {@code -Dturnstile.test.jdk25=DIR}
 * names another) with both stores on a closed port, lets the readiness check call DynamoDB, and reads what the JVM
 * printed.
 */
class NativeAccessIT {

    private static final Path TARGET = PackagedJar.TARGET;
    private static final Path RUNNER = PackagedJar.RUNNER;
    private static final Path JDK25 = Path.of(System.getProperty("turnstile.test.jdk25", "/usr/lib/jvm/temurin-25-jdk-amd64"));

    @Test
    void theRunnerJarEnablesNativeAccessForTheClassPath() throws IOException {
        assumeTrue(PackagedJar.packaged(), "the build packaged no jar");
        try (JarFile runner = new JarFile(RUNNER.toFile())) {
            assertEquals("ALL-UNNAMED", runner.getManifest().getMainAttributes().getValue("Enable-Native-Access"));
        }
    }

    @Test
    void theJarStartsOnJdk25WithoutANativeAccessWarning() throws Exception {
        assumeTrue(PackagedJar.packaged(), "the build packaged no jar");
        Path java = JDK25.resolve("bin/java");
        assumeTrue(Files.isExecutable(java), "no JDK 25 at " + JDK25);
        int api = PackagedJar.freePort();
        int management = PackagedJar.freePort();
        Path output = TARGET.resolve("native-access-it.log");
        ProcessBuilder start = new ProcessBuilder(java.toString(), "-Dquarkus.http.port=" + api,
                "-Dquarkus.management.port=" + management, "-jar", RUNNER.toString())
                .redirectErrorStream(true).redirectOutput(output.toFile());
        start.environment().putAll(closedStores());
        start.environment().putAll(PackagedJar.devIdentity());
        Process app = start.start();
        try {
            // 503 with every check DOWN here: any answer will do
            String readiness = PackagedJar.readiness(app, management, answer -> true, "target/native-access-it.log").body();
            assertTrue(readiness.contains("DynamoDB"), "the readiness check called DynamoDB: " + readiness);
        } finally {
            app.destroy();
            app.waitFor();
        }
        String printed = Files.readString(output);
        assertFalse(printed.contains("restricted method"), "the JVM warned about native access:\n" + printed);
    }

    /** As the image's training run: the app starts without its stores, whose calls then fail at once. */
    private static Map<String, String> closedStores() {
        return Map.of("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://127.0.0.1:1/none",
                "QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE", "http://127.0.0.1:1",
                "QUARKUS_DYNAMODB_AWS_CREDENTIALS_TYPE", "static",
                "QUARKUS_DYNAMODB_AWS_CREDENTIALS_STATIC_PROVIDER_ACCESS_KEY_ID", "none",
                "QUARKUS_DYNAMODB_AWS_CREDENTIALS_STATIC_PROVIDER_SECRET_ACCESS_KEY", "none",
                "AWS_REGION", "eu-west-1");
    }
}
