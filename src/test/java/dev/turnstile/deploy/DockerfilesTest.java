package dev.turnstile.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The images the Kubernetes overlays run: a pinned base, a numeric non-root user (the kubelet can only enforce
 * {@code runAsNonRoot} against a numeric UID), ports 8080 (API) and 9000 (management), and the artefact the matching Maven build writes.
 */
class DockerfilesTest {

    @ParameterizedTest
    @ValueSource(strings = { "Dockerfile.jvm", "Dockerfile.native", "Dockerfile.native-micro" })
    void imageIsPinnedNonRootAndServesTheApiAndManagementPorts(String name) throws IOException {
        List<String> instructions = Files.readAllLines(Path.of("src/main/docker", name)).stream()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();

        List<String> from = instructions.stream().filter(l -> l.startsWith("FROM ")).toList();
        assertEquals(1, from.size(), "one stage: the artefact is built by Maven, not in the image");
        String base = from.get(0).substring(5).strip();
        assertTrue(base.matches("[a-z0-9.-]+(/[a-z0-9._-]+)+:[0-9][A-Za-z0-9._-]*"), "base image with a version tag: " + base);

        String user = last(instructions, "USER ");
        assertTrue(user.matches("[1-9][0-9]*"), "numeric non-root USER, got " + user);
        assertEquals("8080 9000", last(instructions, "EXPOSE "), "the API and the management interface");
        assertFalse(last(instructions, "ENTRYPOINT ").isEmpty());

        String copies = String.join("\n", instructions.stream().filter(l -> l.startsWith("COPY ")).toList());
        if (name.equals("Dockerfile.jvm")) {
            for (String part : List.of("target/quarkus-app/lib/", "target/quarkus-app/*.jar", "target/quarkus-app/app/",
                    "target/quarkus-app/quarkus/")) {
                assertTrue(copies.contains(part), name + " copies " + part);
            }
        } else {
            assertTrue(copies.contains("target/*-runner"), name + " copies the native executable");
        }
        assertTrue(copies.lines().allMatch(c -> c.contains("--chown=" + user)), "files belong to the runtime user");
    }

    /**
     * A native executable loads aws-crt's JNI library from its own directory (the jar it would be unpacked from is
     * not there), so the library the native build leaves in target/ must land beside the executable, and the build
     * context must admit it.
     */
    @ParameterizedTest
    @ValueSource(strings = { "Dockerfile.native", "Dockerfile.native-micro" })
    void nativeImageShipsTheCrtLibraryBesideTheExecutable(String name) throws IOException {
        List<String> copies = Files.readAllLines(Path.of("src/main/docker", name)).stream()
                .map(String::strip).filter(l -> l.startsWith("COPY ")).toList();
        String executable = destination(copies.stream().filter(c -> c.contains("target/*-runner")).findFirst().orElseThrow());
        String directory = executable.substring(0, executable.lastIndexOf('/') + 1);
        String libraries = copies.stream().filter(c -> c.contains("target/*.so")).findFirst()
                .orElseThrow(() -> new AssertionError(name + " copies target/*.so"));
        assertTrue(libraries.contains("target/*.properties"), name + " copies target/*.properties with the libraries");
        assertEquals(directory, destination(libraries), "the libraries go where the executable is");

        List<String> ignore = Files.readAllLines(Path.of(".dockerignore")).stream().map(String::strip).toList();
        for (String admitted : List.of("!target/*.so", "!target/*.properties", "!target/*-runner")) {
            // the last matching line decides, so an exception only counts after the catch-all that excludes everything
            assertTrue(ignore.indexOf(admitted) > ignore.lastIndexOf("*"), ".dockerignore admits " + admitted + ": " + ignore);
        }
    }

    private static String destination(String copy) {
        String[] words = copy.split("\\s+");
        return words[words.length - 1];
    }

    private static String last(List<String> instructions, String keyword) {
        return instructions.stream().filter(l -> l.startsWith(keyword)).reduce((a, b) -> b)
                .map(l -> l.substring(keyword.length()).strip()).orElse("");
    }
}
