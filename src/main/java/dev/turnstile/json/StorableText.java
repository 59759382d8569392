package dev.turnstile.json;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.RECORD_COMPONENT;
import static java.lang.annotation.ElementType.TYPE_USE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

/**
 * Free text that both stores keep exactly as sent: no NUL (PostgreSQL's text cannot hold it) and no unpaired UTF-16
 * surrogate (UTF-8 cannot encode it, so PostgreSQL would store '?' while the answer echoes the original).
 * {@code null} is valid: pair it with {@code @NotBlank} where the text is required.
 */
@Documented
@Constraint(validatedBy = StorableText.Validator.class)
@Target({ FIELD, METHOD, PARAMETER, RECORD_COMPONENT, TYPE_USE })
@Retention(RUNTIME)
public @interface StorableText {

    String message() default "must not contain NUL or an unpaired UTF-16 surrogate";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    class Validator implements jakarta.validation.ConstraintValidator<StorableText, CharSequence> {

        @Override
        public boolean isValid(CharSequence text, jakarta.validation.ConstraintValidatorContext context) {
            return text == null || storable(text);
        }

        static boolean storable(CharSequence text) {
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '\0' || Character.isLowSurrogate(c)) {
                    return false;
                }
                if (Character.isHighSurrogate(c)) {
                    if (i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                        return false;
                    }
                    i++;
                }
            }
            return true;
        }
    }
}
