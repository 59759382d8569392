package dev.turnstile.local;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jboss.logging.Logger;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Starts dynalite (the DynamoDB stand-in pinned in package.json) for the dev and test profiles and points
 * {@code quarkus.dynamodb.endpoint-override} at it. Dev Services cannot do this: they need Docker.
 *
 * <p>One dynalite serves the whole JVM: live reloads in {@code quarkus:dev} and every {@code @QuarkusTest} in a
 * test run reuse it. It stops with the JVM, through a shutdown hook and, should the JVM be killed, because
 * {@code local/dynalite.js} exits when the pipe to its standard input closes.
 */
public class LocalDynamoDb implements ConfigSourceFactory {

    static final String ENABLED = "turnstile.local-dynamodb.enabled";
    static final String ENDPOINT = "quarkus.dynamodb.endpoint-override";
    /** Survives live reload, which replaces this class's loader but not the JVM's system properties. */
    private static final String RUNNING_PORT = "dev.turnstile.dynalite.running-port";
    private static final Pattern LISTENING = Pattern.compile("dynalite listening on port (\\d+)");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Logger LOG = Logger.getLogger(LocalDynamoDb.class);

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (!enabled(context)) {
            return List.of();
        }
        int port = ensureRunning(Path.of(valueOr(context, "turnstile.local-dynamodb.directory", ".")),
                valueOr(context, "turnstile.local-dynamodb.node", "node"));
        // Above application.properties (250), below environment variables (300) and system properties (400).
        return List.of(new PropertiesConfigSource(Map.of(ENDPOINT, "http://127.0.0.1:" + port), "turnstile-local-dynamodb", 275));
    }

    private static boolean enabled(ConfigSourceContext context) {
        if (!Boolean.parseBoolean(valueOr(context, ENABLED, "false"))) {
            return false;
        }
        // A user who names an endpoint (real AWS, another emulator) gets that endpoint and no dynalite.
        ConfigValue explicit = context.getValue(ENDPOINT);
        return explicit == null || explicit.getValue() == null || explicit.getValue().isBlank();
    }

    private static String valueOr(ConfigSourceContext context, String name, String fallback) {
        ConfigValue value = context.getValue(name);
        return value == null || value.getValue() == null ? fallback : value.getValue();
    }

    private static synchronized int ensureRunning(Path directory, String node) {
        OptionalInt running = runningPort();
        if (running.isPresent()) {
            return running.getAsInt();
        }
        installIfMissing(directory);
        int port = start(directory, node);
        System.setProperty(RUNNING_PORT, Integer.toString(port));
        return port;
    }

    private static OptionalInt runningPort() {
        String known = System.getProperty(RUNNING_PORT);
        if (known == null) {
            return OptionalInt.empty();
        }
        int port = Integer.parseInt(known);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return OptionalInt.of(port);
        } catch (IOException gone) {
            return OptionalInt.empty();
        }
    }

    private static void installIfMissing(Path directory) {
        if (Files.isDirectory(directory.resolve("node_modules/dynalite"))) {
            return;
        }
        if (!Files.isRegularFile(directory.resolve("package-lock.json"))) {
            throw new LocalBackendUnavailable("The local DynamoDB (dynalite) needs package-lock.json in "
                    + directory.toAbsolutePath().normalize()
                    + ": run from the project root, or set QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE to a running DynamoDB.");
        }
        LOG.info("Installing dynalite with npm ci (first run only)");
        try {
            Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund")
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!npm.waitFor(5, TimeUnit.MINUTES) || npm.exitValue() != 0) {
                throw new LocalBackendUnavailable("npm ci failed in " + directory.toAbsolutePath().normalize()
                        + ": run it by hand to see why, or set QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE to a running DynamoDB.");
            }
        } catch (IOException e) {
            throw new LocalBackendUnavailable("npm is not installed: install Node.js 20+ for the local DynamoDB, "
                    + "or set QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE to a running DynamoDB.");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalBackendUnavailable("Interrupted while installing dynalite.");
        }
    }

    private static int start(Path directory, String node) {
        Process process;
        try {
            process = new ProcessBuilder(node, "local/dynalite.js")
                    .directory(directory.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
        } catch (IOException e) {
            throw new LocalBackendUnavailable("Node.js (" + node + ") is not installed: install Node.js 20+ for the "
                    + "local DynamoDB, or set QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE to a running DynamoDB.");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "dynalite-stop"));
        int port = awaitPort(process);
        LOG.infof("Local DynamoDB (dynalite, pid %d) listening on http://127.0.0.1:%d", process.pid(), port);
        return port;
    }

    private static int awaitPort(Process process) {
        BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try {
            String line;
            while (System.nanoTime() < deadline && (line = output.readLine()) != null) {
                Matcher listening = LISTENING.matcher(line);
                if (listening.find()) {
                    return Integer.parseInt(listening.group(1));
                }
            }
        } catch (IOException e) {
            // falls through to the failure below
        }
        process.destroy();
        throw new LocalBackendUnavailable("dynalite did not start (see its output above): check that "
                + "node local/dynalite.js runs, or set QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE to a running DynamoDB.");
    }
}
