package dev.turnstile.booking;

import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * A booking as the API shows it. {@code ticketStatus} is PENDING, ISSUED or VOID (cancelled; a ticket number issued
 * before the cancel stays visible, so the ticket can be refunded); the number appears once a worker has issued it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@RegisterForReflection
public record BookingView(String bookingId, String flightId, String fareClass, String passengerId, boolean elite,
        String status, String ticketStatus, String ticketNumber) {

    /**
     * The booking's entity tag: what of it can change (a cancel, a ticket issued or voided; the number comes with
     * ISSUED and never changes), so it names one representation of one booking.
     */
    static String entityTag(String status, String ticketStatus) {
        return status.toLowerCase(Locale.ROOT) + "-" + ticketStatus.toLowerCase(Locale.ROOT);
    }

    @JsonIgnore
    String entityTag() {
        return entityTag(status, ticketStatus);
    }
}
