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
 * The shape of an account id (customer, passenger): the identity provider's subject, which Turnstile does not choose.
 * OpenID Connect Core 5.1 allows up to 255 ASCII characters, and issuers use more than {@link Identifier} does
 * (Auth0: {@code auth0|5f7c...}, {@code google-oauth2|1047...}); printable ASCII without a leading or trailing space is
 * as safe in a DynamoDB key and a PostgreSQL text column, and no account id is ever put in a URL. The bearer check
 * refuses a token whose subject does not fit ({@code identity/VerifiedTokens}), so every caller can be named in a body.
 * Null passes.
 */
@Documented
@Constraint(validatedBy = {})
@ReportAsSingleViolation
@Pattern(regexp = AccountId.PATTERN)
@Target({ FIELD, PARAMETER, RECORD_COMPONENT })
@Retention(RUNTIME)
public @interface AccountId {

    String PATTERN = "[!-~]([ -~]{0,253}[!-~])?";

    String message() default "must be 1-255 printable ASCII characters, without a leading or trailing space";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
