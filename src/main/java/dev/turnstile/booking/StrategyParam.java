package dev.turnstile.booking;

import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import jakarta.ws.rs.ext.ParamConverter;
import jakarta.ws.rs.ext.ParamConverterProvider;
import jakarta.ws.rs.ext.Provider;

import dev.turnstile.problem.ProblemException;

/**
 * Reads the {@code strategy} query parameter into a {@link Strategy} at the edge, against the strategies the operator
 * allows ({@code turnstile.booking.allowed-strategies}). An unknown or forbidden value is the client's error: a 400
 * naming the parameter and the values it may take. An empty value counts as absent (the default strategy).
 */
@Provider
public class StrategyParam implements ParamConverterProvider {

    private final AllowedStrategies allowed;
    private final ParamConverter<Strategy> converter = new ParamConverter<>() {
        @Override
        public Strategy fromString(String value) {
            return value == null || value.isBlank() ? null : parse(value);
        }

        @Override
        public String toString(Strategy strategy) {
            return strategy.label();
        }
    };

    StrategyParam(AllowedStrategies allowed) {
        this.allowed = allowed;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> ParamConverter<T> getConverter(Class<T> rawType, Type genericType, Annotation[] annotations) {
        return rawType == Strategy.class ? (ParamConverter<T>) converter : null;
    }

    private Strategy parse(String value) {
        String label = value.trim().toLowerCase(Locale.ROOT);
        for (Strategy strategy : allowed.set()) {
            if (strategy.label().equals(label)) {
                return strategy;
            }
        }
        List<String> labels = Strategy.labels(allowed.set());
        throw ProblemException.invalid(List.of(new ProblemException.FieldError("strategy", "must be one of " + labels)),
                Map.of("allowed", labels));
    }
}
