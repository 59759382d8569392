package dev.turnstile.json;

import jakarta.inject.Singleton;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;

import io.quarkus.jackson.ObjectMapperCustomizer;

/**
 * Jackson's lenient defaults would turn {@code "seats": 1.5} into 1, {@code "seats": "10"} into 10 and
 * {@code "customerId": 5} into "5": a write the client never asked for. Turnstile refuses such input (400 naming the
 * field) instead of guessing. Unknown fields are refused by {@code quarkus.jackson.fail-on-unknown-properties}. A body
 * means one thing: a field named twice (Jackson keeps the last) and anything after the first JSON value (Jackson reads
 * the first and ignores the rest) are refused too.
 */
@Singleton
public class StrictJsonInput implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        mapper.enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper.coercionConfigDefaults()
                .setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        // a string field takes a JSON string only: Jackson would otherwise write the number or boolean as text
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
    }
}
