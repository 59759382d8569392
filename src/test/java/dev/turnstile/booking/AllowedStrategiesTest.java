package dev.turnstile.booking;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

/** An operator forbids strategies on the public API: a forbidden one is a 400 naming the parameter, and nothing is written. */
@QuarkusTest
@TestProfile(AllowedStrategiesTest.OnlyAtomicAndSharded.class)
class AllowedStrategiesTest {

    public static class OnlyAtomicAndSharded implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("turnstile.booking.allowed-strategies", "sharded,atomic",
                    "turnstile.booking.default-strategy", "atomic");
        }
    }

    @Inject
    Pool pool;

    @Test
    void aForbiddenStrategyIsRefusedNamingTheParameterAndTheAllowedValues() {
        String flight = "ALLOWED-" + UUID.randomUUID();
        new BookingClient().putFare(flight, "Y", 10, 0, 1);
        for (String forbidden : new String[] { "pessimistic", "nowait", "optimistic", "serializable" }) {
            asStaff().contentType("application/json").body("{\"passengerId\":\"p-" + forbidden + "\"}")
                    .post("/flights/" + flight + "/fares/Y/bookings?strategy=" + forbidden)
                    .then().statusCode(400).contentType("application/problem+json")
                    .body("reason", is("INVALID_REQUEST"))
                    .body("errors.field", hasItem("strategy"))
                    .body("allowed", contains("atomic", "sharded"));
        }
        assertEquals(0, bookings(flight), "a refused strategy writes nothing");

        asStaff().contentType("application/json").body("{\"passengerId\":\"p-atomic\"}")
                .post("/flights/" + flight + "/fares/Y/bookings?strategy=atomic").then().statusCode(201);
        asStaff().contentType("application/json").body("{\"passengerId\":\"p-default\"}")
                .post("/flights/" + flight + "/fares/Y/bookings").then().statusCode(201);
        assertEquals(2, bookings(flight));
    }

    private long bookings(String flight) {
        return pool.preparedQuery("SELECT count(*) FROM bookings WHERE flight_id = $1").execute(Tuple.of(flight))
                .await().atMost(Duration.ofSeconds(10)).iterator().next().getLong(0);
    }
}
