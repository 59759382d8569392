package dev.turnstile.json;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;

import io.quarkus.jackson.ObjectMapperCustomizer;

/**
 * Jackson's lenient defaults would turn {@code "seats": 1.5} into 1 and {@code "seats": "10"} into 10: a write the
 * client never asked for. Turnstile refuses such input (400 naming the field) instead of guessing.
 */
@Singleton
public class StrictJsonInput implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        mapper.enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);
        mapper.coercionConfigDefaults()
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
    }
}
