package dev.turnstile.rental;

import java.lang.annotation.Annotation;
import java.lang.reflect.Type;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.ext.ParamConverter;
import jakarta.ws.rs.ext.ParamConverterProvider;
import jakarta.ws.rs.ext.Provider;

import dev.turnstile.problem.ProblemException;
import dev.turnstile.problem.ProblemMappers;

/**
 * Reads {@link RentMode} from the query string. A converter's own exception would reach the client as a bare 404
 * (JAX-RS wraps it in NotFoundException), so the refusal leaves as a WebApplicationException that already holds the
 * problem answer, which JAX-RS sends as it is.
 */
@Provider
public class RentalParams implements ParamConverterProvider {

    private static final ParamConverter<RentMode> RENT_MODE = new ParamConverter<>() {
        @Override
        public RentMode fromString(String value) {
            return RentMode.named(value).orElseThrow(() -> refusal(RentMode.unknown()));
        }

        @Override
        public String toString(RentMode mode) {
            return mode.label();
        }
    };

    private static WebApplicationException refusal(ProblemException problem) {
        return new WebApplicationException(problem, ProblemMappers.respond(problem.toProblem()));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> ParamConverter<T> getConverter(Class<T> rawType, Type genericType, Annotation[] annotations) {
        return rawType == RentMode.class ? (ParamConverter<T>) RENT_MODE : null;
    }
}
