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
 * {@code runAsNonRoot} against a numeric UID), port 8080, and the artefact the matching Maven build writes.
 */
class DockerfilesTest {

    @ParameterizedTest
    @ValueSource(strings = { "Dockerfile.jvm", "Dockerfile.native", "Dockerfile.native-micro" })
    void imageIsPinnedNonRootAndServesOn8080(String name) throws IOException {
        List<String> instructions = Files.readAllLines(Path.of("src/main/docker", name)).stream()
                .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();

        List<String> from = instructions.stream().filter(l -> l.startsWith("FROM ")).toList();
        assertEquals(1, from.size(), "one stage: the artefact is built by Maven, not in the image");
        String base = from.get(0).substring(5).strip();
        assertTrue(base.matches("[a-z0-9.-]+(/[a-z0-9._-]+)+:[0-9][A-Za-z0-9._-]*"), "base image with a version tag: " + base);

        String user = last(instructions, "USER ");
        assertTrue(user.matches("[1-9][0-9]*"), "numeric non-root USER, got " + user);
        assertEquals("8080", last(instructions, "EXPOSE "));
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

    private static String last(List<String> instructions, String keyword) {
        return instructions.stream().filter(l -> l.startsWith(keyword)).reduce((a, b) -> b)
                .map(l -> l.substring(keyword.length()).strip()).orElse("");
    }
}
