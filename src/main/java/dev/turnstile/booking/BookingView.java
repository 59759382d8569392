package dev.turnstile.booking;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.quarkus.runtime.annotations.RegisterForReflection;

/** A booking as the API shows it; the ticket number appears once a ticketing worker has issued it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@RegisterForReflection
public record BookingView(String bookingId, String flightId, String fareClass, String passengerId, boolean elite,
        String status, String ticketNumber) {
}
