package dev.turnstile.rental;

import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import jakarta.ws.rs.ext.ParamConverter;
import jakarta.ws.rs.ext.ParamConverterProvider;
import jakarta.ws.rs.ext.Provider;

import dev.turnstile.problem.ProblemException;

/**
 * Reads the rental API's enum parameters: {@code mode} ({@link RentMode}, by its label) and the listing's
 * {@code status} ({@link BikeStatus}, by its name). Any other value is 400 INVALID_REQUEST naming the parameter and
 * the values it may take, as booking's {@code strategy} is (JAX-RS wraps a converter's exception in a 404;
 * ProblemMappers answers the ProblemException inside it).
 */
@Provider
public class RentalParams implements ParamConverterProvider {

    private static final ParamConverter<RentMode> RENT_MODE = new Labelled<>(RentMode.PARAMETER, RentMode.values(), RentMode::label);
    private static final ParamConverter<BikeStatus> BIKE_STATUS = new Labelled<>("status", BikeStatus.values(), BikeStatus::name);

    @Override
    @SuppressWarnings("unchecked")
    public <T> ParamConverter<T> getConverter(Class<T> rawType, Type genericType, Annotation[] annotations) {
        if (rawType == RentMode.class) {
            return (ParamConverter<T>) RENT_MODE;
        }
        return rawType == BikeStatus.class ? (ParamConverter<T>) BIKE_STATUS : null;
    }

    private static final class Labelled<E extends Enum<E>> implements ParamConverter<E> {

        private final String parameter;
        private final E[] values;
        private final Function<E, String> label;
        private final List<String> labels;

        Labelled(String parameter, E[] values, Function<E, String> label) {
            this.parameter = parameter;
            this.values = values;
            this.label = label;
            this.labels = Arrays.stream(values).map(label).toList();
        }

        @Override
        public E fromString(String value) {
            for (E candidate : values) {
                if (label.apply(candidate).equals(value)) {
                    return candidate;
                }
            }
            throw ProblemException.invalid(
                    List.of(new ProblemException.FieldError(parameter, "must be one of " + labels)), Map.of("allowed", labels));
        }

        @Override
        public String toString(E value) {
            return label.apply(value);
        }
    }
}
