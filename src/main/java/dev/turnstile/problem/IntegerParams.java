package dev.turnstile.problem;

import java.lang.annotation.Annotation;
import java.lang.reflect.Type;

import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.ext.ParamConverter;
import jakarta.ws.rs.ext.ParamConverterProvider;
import jakarta.ws.rs.ext.Provider;

/**
 * Reads an {@code int} query, path or header parameter. JAX-RS answers a value that is no integer
 * ({@code limit=abc}, {@code limit=1.5}, one past {@code int}) with a bare 404 that names nothing; here it is 400
 * INVALID_REQUEST naming the parameter, as every other bad input is (ProblemMappers answers the ProblemException
 * JAX-RS wraps). Bounds stay with Bean Validation on the parameter.
 */
@Provider
public class IntegerParams implements ParamConverterProvider {

    @Override
    @SuppressWarnings("unchecked")
    public <T> ParamConverter<T> getConverter(Class<T> rawType, Type genericType, Annotation[] annotations) {
        if (rawType != int.class && rawType != Integer.class) {
            return null;
        }
        for (Annotation annotation : annotations) {
            String name = annotation instanceof QueryParam query ? query.value()
                    : annotation instanceof PathParam path ? path.value()
                    : annotation instanceof HeaderParam header ? header.value() : null;
            if (name != null) {
                return (ParamConverter<T>) new WholeNumber(name);
            }
        }
        return null;
    }

    private record WholeNumber(String parameter) implements ParamConverter<Integer> {

        @Override
        public Integer fromString(String value) {
            try {
                return Integer.valueOf(value);
            } catch (NumberFormatException notOne) {
                throw ProblemException.invalid(parameter, "must be an integer");
            }
        }

        @Override
        public String toString(Integer value) {
            return value.toString();
        }
    }
}
