package dev.turnstile.rental;

import static dev.turnstile.identity.Tokens.asStaff;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * Behind an ingress or a gateway that ends TLS, the links the API hands out (Location of a new bike, Link to the next
 * page) name the address the client used, as the proxy forwarded it, not the pod's own http://host:port: a client
 * following them would otherwise leave TLS or reach an address it cannot.
 */
@QuarkusTest
class BehindAProxyTest {

    @Test
    void locationAndNextLinkNameTheAddressTheClientUsed() {
        String station = RentalHttp.unique("s");
        String bikeId = RentalHttp.unique("b");
        asStaff().header("X-Forwarded-Proto", "https").header("X-Forwarded-Host", "api.example.com")
                .contentType(ContentType.JSON).body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"" + station + "\"}")
                .post("/bikes").then().statusCode(201).header("Location", is("https://api.example.com/bikes/" + bikeId));
        asStaff().contentType(ContentType.JSON).body("{\"bikeId\":\"" + RentalHttp.unique("b") + "\",\"station\":\"" + station + "\"}")
                .post("/bikes").then().statusCode(201);

        asStaff().header("X-Forwarded-Proto", "https").header("X-Forwarded-Host", "api.example.com")
                .queryParam("station", station).queryParam("limit", 1)
                .get("/bikes").then().statusCode(200)
                .header("Link", startsWith("<https://api.example.com/bikes?station=" + station + "&limit=1&cursor="));
    }

    /**
     * An ingress that serves the API under a path (Traefik's StripPrefix, ingress-nginx's rewrite with its
     * x-forwarded-prefix annotation) removes the prefix and names it in X-Forwarded-Prefix: the links name it again,
     * and the routes stay where they are.
     */
    @Test
    void underAPathPrefixTheLinksNameItAndTheRoutesStay() {
        String station = RentalHttp.unique("s");
        String bikeId = RentalHttp.unique("b");
        asStaff().header("X-Forwarded-Proto", "https").header("X-Forwarded-Host", "api.example.com")
                .header("X-Forwarded-Prefix", "/turnstile")
                .contentType(ContentType.JSON).body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"" + station + "\"}")
                .post("/bikes").then().statusCode(201)
                .header("Location", is("https://api.example.com/turnstile/bikes/" + bikeId));
        asStaff().contentType(ContentType.JSON).body("{\"bikeId\":\"" + RentalHttp.unique("b") + "\",\"station\":\"" + station + "\"}")
                .post("/bikes").then().statusCode(201);

        asStaff().header("X-Forwarded-Prefix", "/turnstile").get("/bikes/" + bikeId).then().statusCode(200);
        asStaff().header("X-Forwarded-Proto", "https").header("X-Forwarded-Host", "api.example.com")
                .header("X-Forwarded-Prefix", "/turnstile").queryParam("station", station).queryParam("limit", 1)
                .get("/bikes").then().statusCode(200)
                .header("Link", startsWith("<https://api.example.com/turnstile/bikes?station=" + station + "&limit=1&cursor="));
    }

    /** A prefix is a path: one that is not cannot make a link name another host. */
    @Test
    void aPrefixThatIsAPathOnlyInPartNamesNoOtherHost() {
        String authority = URI.create(createdAt(null)).getRawAuthority();
        for (String prefix : new String[] { "@evil.example", "evil.example" }) {
            assertEquals(authority, URI.create(createdAt(prefix)).getRawAuthority(), prefix);
        }
    }

    /**
     * Quarkus copies X-Forwarded-* into the request's address unchecked. A host or scheme that is not one failed the
     * Location after the bike was stored (500, and a retry got BIKE_EXISTS); a prefix that is not a path named another
     * host (a booking's Location, {@code //evil.example}) or a query. Refused before anything is stored.
     */
    @Test
    void forwardedHeadersThatNameNoAddressAreRefusedAndNothingIsStored() {
        String[][] refused = {
                { "X-Forwarded-Host", "a b" },
                { "X-Forwarded-Proto", "1" },
                { "X-Forwarded-Prefix", "//evil.example" },
                { "X-Forwarded-Prefix", "/a?b#c" } };
        for (String[] header : refused) {
            String bikeId = RentalHttp.unique("b");
            asStaff().header(header[0], header[1]).contentType(ContentType.JSON)
                    .body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\"}")
                    .post("/bikes").then().statusCode(400).contentType("application/problem+json")
                    .body("reason", is("INVALID_REQUEST")).body("errors[0].field", is(header[0]));
            asStaff().get("/bikes/" + bikeId).then().statusCode(404);
        }
    }

    private static String createdAt(String prefix) {
        var request = asStaff();
        if (prefix != null) {
            request.header("X-Forwarded-Prefix", prefix);
        }
        return request.contentType(ContentType.JSON).body("{\"bikeId\":\"" + RentalHttp.unique("b") + "\",\"station\":\"harbour\"}")
                .post("/bikes").then().statusCode(201).extract().header("Location");
    }

    /**
     * The proxies in front of it set X-Forwarded-*; a Forwarded header would come from the client itself, passed on
     * untouched, so it names nothing.
     */
    @Test
    void aForwardedHeaderFromTheClientNamesNothing() {
        String bikeId = RentalHttp.unique("b");
        asStaff().header("Forwarded", "proto=https;host=evil.example").contentType(ContentType.JSON)
                .body("{\"bikeId\":\"" + bikeId + "\",\"station\":\"harbour\"}")
                .post("/bikes").then().statusCode(201).header("Location", not(containsString("evil.example")));
    }
}
