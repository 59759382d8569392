package dev.turnstile.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
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

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
