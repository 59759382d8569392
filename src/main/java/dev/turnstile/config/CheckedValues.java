package dev.turnstile.config;

import java.time.Duration;
import java.util.regex.Pattern;

import org.eclipse.microprofile.config.spi.Converter;

import io.quarkus.runtime.configuration.DurationConverter;

/**
 * The checks of Turnstile's own settings, as SmallRye Config converters ({@code @WithConverter}): a bad value fails the
 * start, naming the property and the value, as Bean Validation constraints on the mappings did.
 * <p>
 * Why not Bean Validation: a constraint on any {@code @ConfigMapping} makes Quarkus build a second Hibernate Validator
 * factory for the configuration in static init, before anything else can run. That cost 0.5-0.6 s of every start on
 * the 2-core machines (JDK 25 with the AOT cache: "started in" 2.0-2.8 s with it, 1.6-2.4 s without, alternating
 * starts; async-profiler put 605 ms of the main thread in {@code HibernateBeanValidationConfigValidator.<init>}), for
 * a handful of lower bounds and one pattern. {@code ArchitectureTest} keeps constraints off the mappings.
 */
public final class CheckedValues {

    private static final DurationConverter DURATIONS = new DurationConverter();

    private CheckedValues() {
    }

    /** {@code >= 0}. */
    public static final class NonNegative implements Converter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) atLeast(0, Integer.parseInt(value.strip()));
        }
    }

    /** {@code >= 1}. */
    public static final class Positive implements Converter<Integer> {
        @Override
        public Integer convert(String value) {
            return (int) atLeast(1, Integer.parseInt(value.strip()));
        }
    }

    /** {@code >= 0}, for a {@code long}. */
    public static final class NonNegativeLong implements Converter<Long> {
        @Override
        public Long convert(String value) {
            return atLeast(0, Long.parseLong(value.strip()));
        }
    }

    /** A duration ({@code 5s}, {@code PT5S}, {@code 500ms}) of at least 1 ms: its user counts in milliseconds. */
    public static final class AtLeastOneMillisecond implements Converter<Duration> {
        @Override
        public Duration convert(String value) {
            return atLeast(Duration.ofMillis(1), "1ms", value);
        }
    }

    /** A duration of at least 1 s: its user counts in seconds (an expiry in epoch seconds, a Retry-After). */
    public static final class AtLeastOneSecond implements Converter<Duration> {
        @Override
        public Duration convert(String value) {
            return atLeast(Duration.ofSeconds(1), "1s", value);
        }
    }

    /** PostgreSQL's duration syntax, as {@code set_config} takes it: a number, optionally a unit. */
    public static final class PostgresDuration implements Converter<String> {
        private static final Pattern SYNTAX = Pattern.compile("[0-9]+ ?(us|ms|s|min|h|d)?");

        @Override
        public String convert(String value) {
            if (!SYNTAX.matcher(value).matches()) {
                throw new IllegalArgumentException("must be a PostgreSQL duration: a number, optionally us, ms, s, min, h or d");
            }
            return value;
        }
    }

    /** Not only blanks. */
    public static final class NotBlank implements Converter<String> {
        @Override
        public String convert(String value) {
            if (value.isBlank()) {
                throw new IllegalArgumentException("must not be blank");
            }
            return value;
        }
    }

    private static Duration atLeast(Duration least, String named, String value) {
        Duration duration = DURATIONS.convert(value);
        if (duration == null || duration.compareTo(least) < 0) {
            throw new IllegalArgumentException("must be at least " + named);
        }
        return duration;
    }

    private static long atLeast(long least, long number) {
        if (number < least) {
            throw new IllegalArgumentException("must be " + least + " or more");
        }
        return number;
    }
}
