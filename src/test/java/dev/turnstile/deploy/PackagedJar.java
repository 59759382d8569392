package dev.turnstile.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/** What the tests that start the packaged jar themselves (not through @QuarkusIntegrationTest) need. */
final class PackagedJar {

    static final Path TARGET = Path.of("target");
    static final Path RUNNER = TARGET.resolve("quarkus-app/quarkus-run.jar");

    private PackagedJar() {
    }

    /** False for a native build, or when nothing was packaged. */
    static boolean packaged() throws IOException {
        Path artefact = TARGET.resolve("quarkus-artifact.properties");
        if (!Files.isRegularFile(artefact) || !Files.isRegularFile(RUNNER)) {
            return false;
        }
        Properties properties = new Properties();
        try (InputStream in = Files.newInputStream(artefact)) {
            properties.load(in);
        }
        return "jar".equals(properties.getProperty("type"));
    }

    /** The packaged (prod) build does not start without identity settings: the local ones, as the scripts use. */
    static Map<String, String> devIdentity() throws IOException {
        Properties identity = new Properties();
        try (InputStream in = Files.newInputStream(Path.of("local/dev-identity.env"))) {
            identity.load(in);
        }
        String key = "TURNSTILE_IDENTITY_PUBLIC_KEY_LOCATION";
        identity.setProperty(key, Path.of(identity.getProperty(key)).toAbsolutePath().toString());
        return identity.stringPropertyNames().stream().collect(Collectors.toMap(name -> name, identity::getProperty));
    }

    /**
     * The first readiness answer that {@code enough} accepts, asked every 200 ms for up to 90 s while the jar runs;
     * {@code log} is the file its output goes to, named in the failure.
     */
    static HttpResponse<String> readiness(Process app, int port, Predicate<HttpResponse<String>> enough, String log)
            throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/q/health/ready"))
                .timeout(Duration.ofSeconds(30)).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            if (!app.isAlive()) {
                throw new AssertionError("the jar exited on its own: see " + log);
            }
            try {
                HttpResponse<String> answer = http.send(ready, HttpResponse.BodyHandlers.ofString());
                if (enough.test(answer)) {
                    return answer;
                }
            } catch (IOException notListeningYet) {
                // the management interface is not up yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no readiness answer as expected within 90 s: see " + log);
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
