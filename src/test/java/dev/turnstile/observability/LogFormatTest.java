package dev.turnstile.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * The log format per profile, as application.properties sets it: JSON lines in prod (what a log pipeline reads; the
 * JSON handler writes the MDC, so traceId and spanId), plain text naming traceId and spanId in dev and test.
 */
class LogFormatTest {

    @ParameterizedTest
    @CsvSource({ "prod,true", "dev,false", "test,false", "prod;lambda,true" })
    void jsonInProdPlainTextWithTheTraceIdElsewhere(String profiles, boolean json) throws IOException {
        SmallRyeConfig config = configFor(profiles.split(";"));
        assertEquals(json, config.getValue("quarkus.log.console.json.enabled", Boolean.class));
        String format = config.getValue("quarkus.log.console.format", String.class);
        assertTrue(format.contains("%X{traceId}") && format.contains("%X{spanId}"), format);
    }

    private static SmallRyeConfig configFor(String... profiles) throws IOException {
        URL properties = LogFormatTest.class.getClassLoader().getResource("application.properties");
        return new SmallRyeConfigBuilder().withProfiles(java.util.List.of(profiles)).addDefaultInterceptors()
                .withSources(new PropertiesConfigSource(properties, 250)).build();
    }
}
