package dev.turnstile.booking;


import java.util.regex.Matcher;
import dev.turnstile.Management;

/** Reads one per-strategy counter from the Prometheus scrape at /q/metrics; -1 when it is not there. */
final class Metrics {

    private Metrics() {
    }

    static double counter(String name, Strategy strategy) {
        String scrape = Management.given().get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher m = java.util.regex.Pattern.compile("(?m)^" + name + "\\{[^}]*strategy=\"" + strategy.label() + "\"[^}]*\\} (\\S+)( # .*)?$")
                .matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }
}
