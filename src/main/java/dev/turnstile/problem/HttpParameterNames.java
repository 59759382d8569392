package dev.turnstile.problem;

import java.lang.annotation.Annotation;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.validation.ParameterNameProvider;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;

/**
 * Names a resource method's parameter in a 400's {@code errors[].field} as the request names it: a header as
 * {@code Idempotency-Key}, a query parameter as {@code strategy}, not by the Java parameter that receives it
 * ({@code idempotencyKey}), so that a client sees one name for one header whichever check refused it. Quarkus hands
 * this bean to Hibernate Validator; any other parameter keeps its Java name, as Hibernate Validator's default does.
 *
 * <p>Hibernate Validator asks for the names of every validated parameter of every request, not only of a refused one,
 * and the JDK parses a method's parameter annotations anew on each call: the names are worked out once per method.
 */
@ApplicationScoped
public class HttpParameterNames implements ParameterNameProvider {

    private final Map<Executable, List<String>> known = new ConcurrentHashMap<>();

    @Override
    public List<String> getParameterNames(Constructor<?> constructor) {
        return known.computeIfAbsent(constructor, HttpParameterNames::names);
    }

    @Override
    public List<String> getParameterNames(Method method) {
        return known.computeIfAbsent(method, HttpParameterNames::names);
    }

    private static List<String> names(Executable executable) {
        Parameter[] parameters = executable.getParameters();
        Annotation[][] annotations = executable.getParameterAnnotations();
        List<String> names = new ArrayList<>(parameters.length);
        // an inner class's constructor has a synthetic first parameter without an entry in the annotations
        for (int i = 0; i < parameters.length; i++) {
            names.add(httpName(annotations.length == parameters.length ? annotations[i] : new Annotation[0], parameters[i].getName()));
        }
        return List.copyOf(names);
    }

    private static String httpName(Annotation[] annotations, String javaName) {
        for (Annotation annotation : annotations) {
            if (annotation instanceof HeaderParam header) {
                return header.value();
            }
            if (annotation instanceof QueryParam query) {
                return query.value();
            }
            if (annotation instanceof PathParam path) {
                return path.value();
            }
        }
        return javaName;
    }
}
