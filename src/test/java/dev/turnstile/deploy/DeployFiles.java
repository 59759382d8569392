package dev.turnstile.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/** Reads the files under deploy/ as plain maps and lists, the way kubectl and CloudFormation read them. */
final class DeployFiles {

    static final Path ROOT = Path.of("deploy");

    private DeployFiles() {
    }

    static List<Path> yamlUnder(String directory) {
        try (Stream<Path> files = Files.walk(ROOT.resolve(directory))) {
            return files.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every document of a (multi-document) Kubernetes YAML file; empty documents are skipped. */
    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> documents(Path file) {
        List<Map<String, Object>> documents = new ArrayList<>();
        for (Object document : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(read(file))) {
            if (document != null) {
                documents.add((Map<String, Object>) document);
            }
        }
        return documents;
    }

    /**
     * A CloudFormation template. The short forms ({@code !Ref X}, {@code !GetAtt A.B}, {@code !Sub ...}, {@code !If [...]})
     * become their long forms ({@code {Ref: X}}, {@code {Fn::GetAtt: [A, B]}}, ...), so assertions see one shape.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> cloudFormation(Path file) {
        return (Map<String, Object>) new Yaml(new CloudFormationConstructor()).load(read(file));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class CloudFormationConstructor extends SafeConstructor {

        private static final List<String> FUNCTIONS = List.of("Base64", "Cidr", "Equals", "FindInMap", "GetAZs",
                "ImportValue", "Join", "Not", "And", "Or", "If", "Select", "Split", "Sub", "Transform", "Condition");

        CloudFormationConstructor() {
            super(new LoaderOptions());
            yamlConstructors.put(new Tag("!Ref"), new LongForm("Ref"));
            yamlConstructors.put(new Tag("!GetAtt"), new GetAtt());
            for (String function : FUNCTIONS) {
                yamlConstructors.put(new Tag("!" + function), new LongForm(function.equals("Condition") ? "Condition" : "Fn::" + function));
            }
        }

        private Object plain(Node node) {
            if (node instanceof ScalarNode scalar) {
                return scalar.getValue();
            }
            if (node instanceof SequenceNode sequence) {
                return constructSequence(sequence);
            }
            return constructMapping((MappingNode) node);
        }

        private final class LongForm extends AbstractConstruct {
            private final String key;

            LongForm(String key) {
                this.key = key;
            }

            @Override
            public Object construct(Node node) {
                Map<String, Object> call = new LinkedHashMap<>();
                call.put(key, plain(node));
                return call;
            }
        }

        private final class GetAtt extends AbstractConstruct {
            @Override
            public Object construct(Node node) {
                Object value = plain(node);
                Map<String, Object> call = new LinkedHashMap<>();
                call.put("Fn::GetAtt", value instanceof String dotted ? List.of(dotted.split("\\.", 2)) : value);
                return call;
            }
        }
    }
}
