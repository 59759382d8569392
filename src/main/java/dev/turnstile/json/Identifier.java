package dev.turnstile.json;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.RECORD_COMPONENT;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import jakarta.validation.ReportAsSingleViolation;
import jakarta.validation.constraints.Pattern;

/**
 * The one shape of a client-chosen id, in a path or a body (bike, station, flight): 1-64 characters of
 * {@code A-Z a-z 0-9 . _ : -}, starting with a letter or a digit. It is safe in a URL path segment, a DynamoDB key and
 * a PostgreSQL text column alike, so no wing needs its own rule. Customers and passengers are the identity provider's
 * subjects, not chosen here: {@link AccountId}. Null passes (add {@code @NotNull} where the id is required).
 */
@Documented
@Constraint(validatedBy = {})
@ReportAsSingleViolation
@Pattern(regexp = Identifier.PATTERN)
@Target({ FIELD, PARAMETER, RECORD_COMPONENT })
@Retention(RUNTIME)
public @interface Identifier {

    String PATTERN = "[A-Za-z0-9][A-Za-z0-9._:-]{0,63}";

    String message() default "must be 1-64 characters of A-Z a-z 0-9 . _ : -, starting with a letter or digit";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
