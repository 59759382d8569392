package dev.turnstile.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Dockerfile.jvm starts on JDK 25 from an AOT cache that its own build trained (no container engine here, so the
 * image is checked by content; bench/startup/run.sh runs the same training on the host JDK 25 and measures it). The
 * cache is only valid for the JVM, options and class path it was trained with, so the training must start the app
 * exactly as the container will.
 */
class JvmImageTest {

    private static final Path DOCKERFILE = Path.of("src/main/docker/Dockerfile.jvm");
    private static final String BEGIN = "# aot-training:begin";
    private static final String END = "# aot-training:end";

    private final List<String> lines = read(DOCKERFILE);
    private final String training = training(lines);

    @Test
    void runsOnAJdk25Runtime() {
        String from = lines.stream().map(String::strip).filter(l -> l.startsWith("FROM ")).findFirst().orElseThrow();
        assertTrue(from.matches("FROM registry\\.access\\.redhat\\.com/ubi9/openjdk-25-runtime:[0-9.]+"), from);
        assertTrue(header().contains("-Dquarkus.package.jar.type=aot-jar"),
                "the build command packages the aot-jar, whose classes the cache can hold");
    }

    @Test
    void trainingRecordsTheCacheThroughTheContainersOwnLauncher() {
        String run = lines.get(lines.indexOf(BEGIN) + 1);
        assertTrue(run.startsWith("RUN ") && run.endsWith("<<'TRAINING'"), "the training is the RUN right after " + BEGIN);
        assertTrue(training.contains("-XX:AOTCacheOutput=$app/app.aot"), "JDK 25 records an AOT cache");
        assertTrue(training.contains("use=\"-XX:AOTCache=$app/app.aot\""), "and the start uses it");
        assertTrue(training.contains("app=${APP_DIR:-/deployments}"), "the cache is written beside the jar at build time");

        String entrypoint = lines.stream().filter(l -> l.startsWith("ENTRYPOINT ")).reduce((a, b) -> b).orElseThrow();
        Matcher launch = Pattern.compile("launch=\\$\\{TRAINING_LAUNCH:-([^}]+)}").matcher(training);
        assertTrue(launch.find(), "the training names its launcher");
        assertTrue(entrypoint.contains("\"" + launch.group(1) + "\""),
                "the training starts the app with the ENTRYPOINT's launcher (same options, same class path): " + launch.group(1));
        assertTrue(training.contains("kill -TERM"), "the JVM writes the cache when the training run exits");
        assertTrue(training.contains("[[ -s ${record#*=} ]]"), "the build fails when no cache was written");
    }

    /** A heap sized from the build machine (over 32 GiB: no compressed oops) would not match the pod's JVM. */
    @Test
    void trainingIsSizedLikeThePod() {
        Matcher maxRam = Pattern.compile("-XX:MaxRAM=([0-9]+)m").matcher(lines.get(lines.indexOf(BEGIN) + 1));
        assertTrue(maxRam.find(), "the training pins the JVM's memory");
        Map<String, Object> limits = podLimits();
        assertEquals(limits.get("memory"), maxRam.group(1) + "Mi", "the training's memory is the JVM pod's limit");
    }

    @Test
    void theStartUsesWhatTheTrainingWroteAndKeepsTheImagesOptions() {
        int trainingEnd = lines.indexOf(END);
        List<String> env = lines.stream().filter(l -> l.startsWith("ENV JAVA_OPTS_APPEND=")).toList();
        assertEquals(2, env.size(), "the image's options, then the cache's argument file added after the training");
        assertTrue(lines.indexOf(env.get(0)) < lines.indexOf(BEGIN), "the training runs with the image's options");
        assertTrue(lines.indexOf(env.get(1)) > trainingEnd, "the cache is asked for only once it exists");
        assertEquals("ENV JAVA_OPTS_APPEND=\"${JAVA_OPTS_APPEND} @/deployments/jvm-start.args\"", env.get(1));
        assertTrue(training.contains("echo \"$use\" >\"$app/jvm-start.args\""), "the training writes that argument file");
    }

    /** JDK 17 has no AOT cache: the same training records an AppCDS archive there (docs/ship.md, "JVM start"). */
    @Test
    void jdk17FallbackIsTrainedAndDocumented() throws IOException {
        assertTrue(training.contains("*\" AOTCacheOutput \"*"), "the training asks the JVM whether it has AOT caches");
        assertTrue(training.contains("-XX:ArchiveClassesAtExit=$app/app-cds.jsa"), "JDK 17 records AppCDS");
        assertTrue(training.contains("use=\"-XX:SharedArchiveFile=$app/app-cds.jsa\""));

        String ship = Files.readString(Path.of("docs/ship.md"));
        int section = ship.indexOf("## JVM start");
        assertTrue(section >= 0, "docs/ship.md has a \"JVM start\" section");
        String text = ship.substring(section, nextSection(ship, section));
        assertTrue(text.contains("openjdk-17-runtime"), "it names the JDK 17 base image");
        assertTrue(text.contains("bench/startup/run.sh"), "and where the figures come from");
    }

    @Test
    void trainingScriptIsValidBash() throws IOException, InterruptedException {
        Path script = Files.createTempFile("aot-training", ".sh");
        try {
            Files.writeString(script, training);
            Process bash = new ProcessBuilder("bash", "-n", script.toString()).redirectErrorStream(true).start();
            assertTrue(bash.waitFor(30, TimeUnit.SECONDS), "bash -n finished");
            assertEquals(0, bash.exitValue(), new String(bash.getInputStream().readAllBytes()));
        } finally {
            Files.delete(script);
        }
    }

    /** The RUN between the markers as bench/startup/run.sh extracts it: a bash command with its heredoc. */
    private static String training(List<String> lines) {
        int begin = lines.indexOf(BEGIN);
        int end = lines.indexOf(END);
        assertTrue(begin >= 0 && end > begin, "Dockerfile.jvm marks its training step");
        List<String> body = lines.subList(begin + 1, end);
        return String.join("\n", body).replaceFirst("^RUN ", "") + "\n";
    }

    private String header() {
        return String.join("\n", lines.stream().takeWhile(l -> !l.startsWith("FROM ")).toList());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> podLimits() {
        Map<String, Object> patch = DeployFiles.documents(Path.of("deploy/kubernetes/overlays/jvm/deployment-patch.yaml")).get(0);
        Map<String, Object> spec = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) patch.get("spec"))
                .get("template")).get("spec");
        Map<String, Object> container = ((List<Map<String, Object>>) spec.get("containers")).get(0);
        return (Map<String, Object>) ((Map<String, Object>) container.get("resources")).get("limits");
    }

    private static int nextSection(String text, int from) {
        int next = text.indexOf("\n## ", from + 1);
        return next < 0 ? text.length() : next;
    }

    private static List<String> read(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
