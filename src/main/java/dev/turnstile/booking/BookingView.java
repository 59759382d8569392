package dev.turnstile.booking;

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
}
