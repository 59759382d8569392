package dev.turnstile.booking;

import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;

/**
 * A fare keeps at most all its seats for elite passengers: {@code eliteReserve <= seats}. The violation names
 * {@code eliteReserve}, so the 400 points at the field to change. Either value missing passes (their own constraints
 * say so).
 */
@Documented
@Constraint(validatedBy = EliteReserveWithinSeats.Validator.class)
@Target(TYPE)
@Retention(RUNTIME)
public @interface EliteReserveWithinSeats {

    String message() default "must not exceed seats";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    class Validator implements ConstraintValidator<EliteReserveWithinSeats, FareRequest> {

        @Override
        public boolean isValid(FareRequest fare, ConstraintValidatorContext context) {
            if (fare == null || fare.seats() == null || fare.eliteReserve() == null || fare.eliteReserve() <= fare.seats()) {
                return true;
            }
            context.disableDefaultConstraintViolation();
            context.buildConstraintViolationWithTemplate(context.getDefaultConstraintMessageTemplate())
                    .addPropertyNode("eliteReserve").addConstraintViolation();
            return false;
        }
    }
}
