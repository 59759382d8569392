package dev.turnstile.deploy;

import java.io.IOException;
import java.net.URL;
import java.time.Duration;
import java.util.List;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/** application.properties as a deployed profile reads it, without starting Quarkus: for checks across settings. */
public final class ApplicationProperties {

    private ApplicationProperties() {
    }

    public static SmallRyeConfig under(String... profiles) throws IOException {
        URL properties = ApplicationProperties.class.getClassLoader().getResource("application.properties");
        return new SmallRyeConfigBuilder().withProfiles(List.of(profiles))
                .withSources(new PropertiesConfigSource(properties, 250)).build();
    }

    public static Duration duration(SmallRyeConfig config, String name) {
        return DurationConverter.parseDuration(config.getValue(name, String.class));
    }
}
