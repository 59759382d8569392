import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * The contention lab (docs/lab/README.md): drives a running Turnstile through every contention scenario over a sweep
 * of client counts and at fixed arrival rates, runs the raw-store baselines (pgbench on the same PostgreSQL, the
 * DynamoDB SDK on the same endpoint, with bench/rental/Bench.java's conditional writes) in the same sitting, and
 * writes one CSV row per point. bench/lab/report.py draws the report from that CSV.
 *
 * Latencies go into HdrHistograms (microseconds). Closed loop: each client sends its next request when the last one
 * was answered. Open loop: request i is due at start + i / rate, and its latency counts from that due time, so a
 * stalled server is charged for the requests it kept waiting (no coordinated omission).
 */
public class Lab {

    static final String[] STRATEGIES = {"optimistic", "pessimistic", "nowait", "atomic", "serializable", "sharded", "batched"};
    /** The API's largest fare: at this machine's rates no point comes near selling it out. */
    static final long FLASH_SEATS = 1_000_000L;

    final Map<String, String> opt;
    final URI api;
    final String management;
    final String token;
    final String pgUrl;
    final String dynamoEndpoint;
    final Path out;
    final int[] concurrency;
    final String[] rates;
    /** The best closed-loop goodput per scenario and variant, for open-loop rates given as a percentage of it. */
    final Map<String, Double> bestClosed = new ConcurrentHashMap<>();
    final double seconds;
    final double warmup;
    final int sellOutSeats;
    final int openLoopConnections;
    final String run = UUID.randomUUID().toString().substring(0, 6);
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final PrintWriter csv;
    final List<String> notes = new ArrayList<>();
    final ThreadLocal<Client> clients = new ThreadLocal<>();

    /** One answer: status, the problem's reason when there is one, and the body. */
    record Answer(int status, String reason, String body) {
        static final Pattern REASON = Pattern.compile("\"reason\"\\s*:\\s*\"([A-Z_]+)\"");

        static Answer of(int status, String body) {
            Matcher m = REASON.matcher(body);
            return new Answer(status, m.find() ? m.group(1) : null, body);
        }

        String key() {
            return reason == null ? Integer.toString(status) : status + " " + reason;
        }
    }

    /** A keep-alive HTTP client per load thread: Bench's raw socket for http://, the JDK client for https://. */
    interface Client {
        Answer send(String method, String path, String json) throws IOException;
    }

    /** What one request counted as, for goodput and for the two latency histograms. */
    enum Outcome {
        OK, REFUSED, ERROR
    }

    /** One measured point: two histograms, answer counts by status and reason, success count. */
    static final class Point {
        final Histogram ok = new ConcurrentHistogram(60_000_000L, 3);
        final Histogram refused = new ConcurrentHistogram(60_000_000L, 3);
        final Map<String, LongAdder> answers = new ConcurrentHashMap<>();
        final LongAdder successes = new LongAdder();
        final LongAdder errors = new LongAdder();
        final AtomicLong sent = new AtomicLong();
        volatile boolean recording;

        void record(Outcome outcome, String key, long micros) {
            if (!recording) {
                return;
            }
            sent.incrementAndGet();
            answers.computeIfAbsent(key, k -> new LongAdder()).increment();
            long value = Math.max(1, Math.min(micros, 60_000_000L));
            switch (outcome) {
                case OK -> ok.recordValue(value);
                case REFUSED -> refused.recordValue(value);
                case ERROR -> errors.increment();
            }
        }
    }

    /** A unit of work for one client: sends one or more requests, records them, says how many successes it made. */
    interface Step {
        /** @return successes this step made (a booking, a rent+return cycle, a read) */
        int run(int client, Point point, long intendedNanos) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opt.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        Lab lab = new Lab(opt);
        try {
            lab.runAll();
        } finally {
            lab.csv.close();
        }
        System.exit(0);
    }

    Lab(Map<String, String> opt) throws IOException {
        this.opt = opt;
        this.api = URI.create(required(opt, "url").replaceAll("/+$", ""));
        this.management = opt.getOrDefault("management", "").replaceAll("/+$", "");
        this.token = required(opt, "token");
        this.pgUrl = opt.getOrDefault("pg", "");
        this.dynamoEndpoint = opt.getOrDefault("dynamo", "");
        this.out = Path.of(opt.getOrDefault("out", "target/lab"));
        this.concurrency = ints(opt.getOrDefault("concurrency", "1,8,32,64,128"));
        this.rates = opt.getOrDefault("rates", "50%,90%,120%").split("[ ,]+");
        this.seconds = Double.parseDouble(opt.getOrDefault("seconds", "5"));
        this.warmup = Double.parseDouble(opt.getOrDefault("warmup", "1"));
        this.sellOutSeats = Integer.parseInt(opt.getOrDefault("sellout-seats", "300"));
        this.openLoopConnections = Integer.parseInt(opt.getOrDefault("open-connections", "256"));
        Files.createDirectories(out);
        this.csv = new PrintWriter(Files.newBufferedWriter(out.resolve("results.csv")), true);
        csv.println(String.join(",", "run", "family", "scenario", "variant", "loop", "concurrency", "rate", "seconds",
                "requests", "ok", "refused", "errors", "goodput_per_s", "unit",
                "ok_p50_ms", "ok_p90_ms", "ok_p99_ms", "ok_p999_ms", "ok_max_ms",
                "refused_p50_ms", "refused_p90_ms", "refused_p99_ms", "refused_p999_ms", "refused_max_ms",
                "conflicts", "retries", "exhausted", "retries_per_success", "invariant", "invariant_detail", "answers"));
    }

    static String required(Map<String, String> opt, String name) {
        String value = opt.get(name);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    static int[] ints(String list) {
        return list.isBlank() ? new int[0]
                : java.util.Arrays.stream(list.split("[ ,]+")).filter(s -> !s.isBlank()).mapToInt(Integer::parseInt).toArray();
    }

    boolean wants(String family) {
        String only = opt.getOrDefault("scenarios", "flash,sellout,bikes,baseline,open");
        return List.of(only.split(",")).contains(family);
    }

    void runAll() throws Exception {
        System.out.printf("lab run %s against %s (management %s), clients %s, %.1f s per point after %.1f s warm-up%n", run, api,
                management.isEmpty() ? "none" : management, java.util.Arrays.toString(concurrency), seconds, warmup);
        List<String> strategies = new ArrayList<>();
        for (String s : opt.getOrDefault("strategies", String.join(",", STRATEGIES)).split(",")) {
            if (accepted(s)) {
                strategies.add(s);
            }
        }
        for (int c : concurrency) {
            if (wants("flash")) {
                for (String s : strategies) {
                    flashSale(s, c);
                }
            }
            if (wants("baseline") && !pgUrl.isEmpty()) {
                pgbench("transaction", c);
                pgbench("statement", c);
            }
        }
        if (wants("sellout")) {
            for (int c : concurrency) {
                for (String s : strategies) {
                    sellOut(s, c);
                }
            }
        }
        if (wants("bikes")) {
            DynamoDbAsyncClient dynamo = dynamoEndpoint.isEmpty() || !wants("baseline") ? null : dynamo();
            for (int c : concurrency) {
                bikesOwn("uncontended", "read-decide-write", c);
                bikesOwn("uncontended", "condition", c);
                bikesHot("read-decide-write", c);
                bikesHot("condition", c);
                bikesRead(c);
                if (dynamo != null) {
                    sdkCycles(dynamo, c);
                    sdkReads(dynamo, c);
                }
            }
            if (dynamo != null) {
                dynamo.close();
            }
        }
        if (wants("open")) {
            for (String s : opt.getOrDefault("open-strategies", "atomic,optimistic").split(",")) {
                if (strategies.contains(s)) {
                    for (String rate : rates) {
                        flashSaleOpen(s, rate("flash-sale/" + s, rate));
                    }
                }
            }
            for (String rate : rates) {
                bikesReadOpen(rate("bikes-read/GET", rate));
            }
        }
        Files.write(out.resolve("notes.txt"), notes);
        notes.forEach(n -> System.out.println("NOTE " + n));
    }

    /** "500" is 500 requests/s; "90%" is 90 % of the best closed-loop goodput this run measured for the scenario. */
    int rate(String scenario, String rate) {
        if (!rate.endsWith("%")) {
            return Integer.parseInt(rate);
        }
        double best = bestClosed.getOrDefault(scenario, 100.0);
        return Math.max(1, (int) Math.round(best * Double.parseDouble(rate.substring(0, rate.length() - 1)) / 100));
    }

    // ---------------------------------------------------------------- flights

    /** A strategy the server refuses (400 naming it) is skipped and noted, so one lab runs against older servers. */
    boolean accepted(String strategy) throws Exception {
        String flight = "lab-" + run + "-probe-" + strategy;
        putFare(flight, 10, 1);
        Answer a = client().send("POST", "/flights/" + flight + "/fares/Y/bookings?strategy=" + strategy,
                "{\"passengerId\":\"lab-probe\"}");
        if (a.status() == 400 && a.body().contains("strategy")) {
            notes.add("strategy " + strategy + " skipped: the server answered 400 " + a.body().replaceAll("\\s+", " "));
            return false;
        }
        return true;
    }

    void putFare(String flight, long seats, int shards) throws Exception {
        Answer a = client().send("PUT", "/flights/" + flight + "/fares/Y", "{\"seats\":" + seats + ",\"shards\":" + shards + "}");
        if (a.status() != 200 && a.status() != 201) {
            throw new IllegalStateException("PUT fare " + flight + ": " + a.status() + " " + a.body());
        }
    }

    /** A new passenger per request: a passenger holds one seat per flight, a repeat would measure ALREADY_BOOKED. */
    final AtomicLong passengers = new AtomicLong();

    Step booking(String flight, String strategy) {
        String path = "/flights/" + flight + "/fares/Y/bookings?strategy=" + strategy;
        return (client, point, intended) -> {
            Answer a = client().send("POST", path, "{\"passengerId\":\"p" + passengers.incrementAndGet() + "\"}");
            long micros = (System.nanoTime() - intended) / 1000;
            Outcome outcome = a.status() == 201 ? Outcome.OK : (a.status() == 409 || a.status() == 503 || a.status() == 429) ? Outcome.REFUSED : Outcome.ERROR;
            point.record(outcome, a.key(), micros);
            return outcome == Outcome.OK ? 1 : 0;
        };
    }

    void flashSale(String strategy, int c) throws Exception {
        String flight = "lab-" + run + "-flash-" + strategy + "-" + c;
        putFare(flight, FLASH_SEATS, strategy.equals("sharded") ? 16 : 1);
        Step step = booking(flight, strategy);
        warmUp(c, step);
        Map<String, Double> before = bookingMetrics(strategy);
        Point p = new Point();
        double elapsed = closedLoop(c, seconds, p, step, null);
        Map<String, Double> after = bookingMetrics(strategy);
        Map<String, Double> delta = delta(before, after);
        String[] inv = audit(flight, null);
        row("flash", "flash-sale", strategy, "closed", c, 0, elapsed, p, "bookings/s", delta, inv);
    }

    void flashSaleOpen(String strategy, int rate) throws Exception {
        String flight = "lab-" + run + "-open-" + strategy + "-" + rate;
        putFare(flight, FLASH_SEATS, strategy.equals("sharded") ? 16 : 1);
        Step step = booking(flight, strategy);
        Map<String, Double> before = bookingMetrics(strategy);
        Point p = new Point();
        double elapsed = openLoop(rate, seconds, p, step);
        Map<String, Double> delta = delta(before, bookingMetrics(strategy));
        row("open", "flash-sale", strategy, "open", openLoopConnections, rate, elapsed, p, "bookings/s", delta, audit(flight, null));
    }

    /** A fare of a few hundred seats and c buyers until each has heard SOLD_OUT; goodput is seats sold per second. */
    void sellOut(String strategy, int c) throws Exception {
        String flight = "lab-" + run + "-sell-" + strategy + "-" + c;
        putFare(flight, sellOutSeats, strategy.equals("sharded") ? 16 : 1);
        Step step = booking(flight, strategy);
        Map<String, Double> before = bookingMetrics(strategy);
        Point p = new Point();
        AtomicBoolean soldOut = new AtomicBoolean();
        Step untilSoldOut = (client, point, intended) -> {
            int made = step.run(client, point, intended);
            LongAdder seen = point.answers.get("409 SOLD_OUT");
            if (seen != null && seen.sum() > 0) {
                soldOut.set(true);
            }
            return made;
        };
        double elapsed = closedLoop(c, 60, p, untilSoldOut, soldOut);
        Map<String, Double> delta = delta(before, bookingMetrics(strategy));
        String[] inv = audit(flight, (long) sellOutSeats);
        row("sellout", "sell-out", strategy, "closed", c, 0, elapsed, p, "seats/s", delta, inv);
    }

    Map<String, Double> bookingMetrics(String strategy) throws Exception {
        Map<String, Double> m = new LinkedHashMap<>();
        String text = metricsText();
        if (text == null) {
            return m;
        }
        String tag = "strategy=\"" + strategy + "\"";
        m.put("conflicts", sum(text, "turnstile_booking_conflicts_total", tag));
        m.put("retries", sum(text, "turnstile_booking_retries_total", tag));
        m.put("exhausted", sum(text, "turnstile_booking_exhausted_total", tag));
        return m;
    }

    /** The audit: seats total = available + confirmed, and confirmed = the 201s this lab counted (all of them). */
    String[] audit(String flight, Long expectSold) throws Exception {
        Answer a = client().send("GET", "/flights/" + flight + "/fares/Y/audit", null);
        if (a.status() != 200) {
            return new String[] {"FAILED", "audit answered " + a.status()};
        }
        boolean consistent = a.body().contains("\"consistent\":true");
        long confirmed = number(a.body(), "confirmedBookings");
        long available = number(a.body(), "seatsAvailable");
        long counted = booked.getOrDefault(flight, new LongAdder()).sum();
        boolean ok = consistent && confirmed == counted && (expectSold == null || (confirmed == expectSold && available == 0));
        return new String[] {ok ? "ok" : "FAILED", "consistent=" + consistent + " confirmed=" + confirmed + " counted_201=" + counted
                + " available=" + available};
    }

    /** 201s per flight over warm-up and measurement, for the audit. */
    final Map<String, LongAdder> booked = new ConcurrentHashMap<>();

    static long number(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*(-?\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    static String text(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
        return m.find() ? m.group(1) : null;
    }

    /** pgbench running bench/booking's transaction on its own fare of the same database, with per-transaction logs. */
    void pgbench(String script, int c) throws Exception {
        String flight = "lab-" + run + "-pg-" + script + "-" + c;
        putFare(flight, FLASH_SEATS, 1);
        Path dir = Files.createTempDirectory("lab-pgbench");
        Path sql = Path.of(opt.getOrDefault("pgbench-dir", "bench/booking")).resolve("pgbench-" + script + ".sql").toAbsolutePath();
        List<String> cmd = List.of("pgbench", "-n", "-M", "prepared", "-c", Integer.toString(c), "-j", Integer.toString(Math.min(c, 2)),
                "-T", Long.toString(Math.max(1, Math.round(seconds))), "-l", "--log-prefix", dir.resolve("tx").toString(),
                "-D", "flight=" + flight, "-f", sql.toString(), pgUrl);
        Process process = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor();
        Point p = new Point();
        p.recording = true;
        long ok = 0;
        try (var files = Files.list(dir)) {
            for (Path log : files.filter(f -> f.getFileName().toString().startsWith("tx")).toList()) {
                for (String line : Files.readAllLines(log)) {
                    String[] f = line.split(" ");
                    if (f.length >= 3) {
                        p.record(Outcome.OK, "commit", Long.parseLong(f[2]));
                        ok++;
                    }
                }
                Files.delete(log);
            }
        }
        Files.delete(dir);
        Matcher tps = Pattern.compile("tps = ([0-9.]+)").matcher(output);
        double rate = tps.find() ? Double.parseDouble(tps.group(1)) : 0;
        if (rate == 0) {
            // no row: a zero would be drawn as the raw store's figure
            notes.add("pgbench " + script + " at " + c + " clients failed: " + output.replaceAll("\\s+", " "));
            return;
        }
        booked.computeIfAbsent(flight, k -> new LongAdder()).add(ok);
        String[] inv = audit(flight, null);
        rowWithRate("baseline", "pgbench-" + script, "pgbench", "closed", c, 0, rate > 0 ? ok / rate : seconds, p, rate, "tx/s",
                Map.of(), inv);
    }

    // ---------------------------------------------------------------- bikes

    /** Rides taken off bikes by a service (rides reset to 0), per bike: the invariant adds them back. */
    final Map<String, LongAdder> servicedRides = new ConcurrentHashMap<>();
    final Map<String, LongAdder> rents = new ConcurrentHashMap<>();

    void createBike(String bikeId) throws Exception {
        Answer a = client().send("POST", "/bikes", "{\"bikeId\":\"" + bikeId + "\",\"station\":\"lab\"}");
        if (a.status() != 201) {
            throw new IllegalStateException("POST /bikes " + bikeId + ": " + a.status() + " " + a.body());
        }
    }

    /**
     * A rent and, when it was granted, the return: one cycle. A bike that reached the server's rides-until-service
     * limit goes to MAINTENANCE on return; the lab services it (staff) and keeps the rides it had for the invariant.
     */
    Step rentCycle(java.util.function.IntFunction<String> bikeOf, String mode, boolean ownBike) {
        String query = mode.equals("condition") ? "?mode=condition" : "";
        return (client, point, intended) -> {
            String bike = bikeOf.apply(client);
            String customer = "lab-c-" + client;
            Answer rent = client().send("POST", "/bikes/" + bike + "/rent" + query, "{\"customerId\":\"" + customer + "\"}");
            long now = System.nanoTime();
            if (rent.status() != 200) {
                point.record(rent.status() == 409 || rent.status() == 503 ? Outcome.REFUSED : Outcome.ERROR, rent.key(), (now - intended) / 1000);
                if (ownBike && rent.status() == 409 || "SERVICE_DUE".equals(rent.reason()) || rent.body().contains("MAINTENANCE")) {
                    service(bike);
                }
                return 0;
            }
            point.record(Outcome.OK, rent.key(), (now - intended) / 1000);
            rents.computeIfAbsent(bike, k -> new LongAdder()).increment();
            long start = System.nanoTime();
            Answer back = client().send("POST", "/bikes/" + bike + "/return", "{\"customerId\":\"" + customer + "\",\"station\":\"lab\"}");
            point.record(back.status() == 200 ? Outcome.OK : Outcome.ERROR, "return " + back.key(), (System.nanoTime() - start) / 1000);
            return back.status() == 200 ? 1 : 0;
        };
    }

    /** Services the bike if it is in MAINTENANCE, keeping the rides the service clears; one client at a time per bike. */
    void service(String bike) throws Exception {
        synchronized (servicedRides.computeIfAbsent(bike, k -> new LongAdder())) {
            Answer now = client().send("GET", "/bikes/" + bike, null);
            if ("MAINTENANCE".equals(text(now.body(), "status"))) {
                long rides = number(now.body(), "ridesSinceService");
                if (client().send("POST", "/bikes/" + bike + "/service", null).status() == 200) {
                    servicedRides.get(bike).add(rides);
                }
            }
        }
    }

    /** Ride counts: each bike's rides now plus the rides a service cleared equal the rents granted, and it is back. */
    String[] rideInvariant(List<String> bikes) throws Exception {
        long counted = 0;
        long ridden = 0;
        int notBack = 0;
        for (String bike : bikes) {
            Answer a = client().send("GET", "/bikes/" + bike, null);
            ridden += number(a.body(), "ridesSinceService") + servicedRides.getOrDefault(bike, new LongAdder()).sum();
            counted += rents.getOrDefault(bike, new LongAdder()).sum();
            if ("RENTED".equals(text(a.body(), "status"))) {
                notBack++;
            }
        }
        boolean ok = ridden == counted && notBack == 0;
        return new String[] {ok ? "ok" : "FAILED", "rides=" + ridden + " rents_200=" + counted + " still_rented=" + notBack};
    }

    void bikesOwn(String scenario, String mode, int c) throws Exception {
        List<String> bikes = new ArrayList<>();
        for (int i = 0; i < c; i++) {
            bikes.add("lab-" + run + "-own-" + (mode.equals("condition") ? "k" : "r") + c + "-" + i);
            createBike(bikes.get(i));
        }
        Step step = rentCycle(bikes::get, mode, true);
        warmUp(c, step);
        Map<String, Double> before = rentalMetrics();
        Point p = new Point();
        double elapsed = closedLoop(c, seconds, p, step, null);
        row("bikes", "bikes-" + scenario, mode, "closed", c, 0, elapsed, p, "cycles/s", delta(before, rentalMetrics()), rideInvariant(bikes));
    }

    void bikesHot(String mode, int c) throws Exception {
        String bike = "lab-" + run + "-hot-" + (mode.equals("condition") ? "k" : "r") + c;
        createBike(bike);
        Step step = rentCycle(client -> bike, mode, false);
        warmUp(c, step);
        Map<String, Double> before = rentalMetrics();
        Point p = new Point();
        double elapsed = closedLoop(c, seconds, p, step, null);
        row("bikes", "bikes-hot", mode, "closed", c, 0, elapsed, p, "rents/s", delta(before, rentalMetrics()), rideInvariant(List.of(bike)));
    }

    Step reading(List<String> bikes) {
        return (client, point, intended) -> {
            Answer a = client().send("GET", "/bikes/" + bikes.get(client % bikes.size()), null);
            point.record(a.status() == 200 ? Outcome.OK : Outcome.ERROR, a.key(), (System.nanoTime() - intended) / 1000);
            return a.status() == 200 ? 1 : 0;
        };
    }

    List<String> readBikes;

    List<String> readBikes() throws Exception {
        if (readBikes == null) {
            readBikes = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                readBikes.add("lab-" + run + "-read-" + i);
                createBike(readBikes.get(i));
            }
        }
        return readBikes;
    }

    void bikesRead(int c) throws Exception {
        Step step = reading(readBikes());
        warmUp(c, step);
        Point p = new Point();
        double elapsed = closedLoop(c, seconds, p, step, null);
        row("bikes", "bikes-read", "GET", "closed", c, 0, elapsed, p, "reads/s", Map.of(), new String[] {"n/a", "reads change nothing"});
    }

    void bikesReadOpen(int rate) throws Exception {
        Point p = new Point();
        double elapsed = openLoop(rate, seconds, p, reading(readBikes()));
        row("open", "bikes-read", "GET", "open", openLoopConnections, rate, elapsed, p, "reads/s", Map.of(), new String[] {"n/a", ""});
    }

    Map<String, Double> rentalMetrics() throws Exception {
        Map<String, Double> m = new LinkedHashMap<>();
        String text = metricsText();
        if (text == null) {
            return m;
        }
        m.put("conflicts", sum(text, "turnstile_rental_version_conflicts_total", ""));
        m.put("retries", sum(text, "ft_retry_retries_total", "RentalService"));
        m.put("exhausted", sum(text, "ft_retry_calls_total", "RentalService", "maxRetriesReached")
                + sum(text, "ft_retry_calls_total", "RentalService", "maxDurationReached"));
        return m;
    }

    DynamoDbAsyncClient dynamo() {
        AwsCredentialsProvider credentials = System.getenv("AWS_ACCESS_KEY_ID") == null
                ? StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local"))
                : DefaultCredentialsProvider.builder().build();
        return DynamoDbAsyncClient.builder().endpointOverride(URI.create(dynamoEndpoint))
                .region(Region.of(System.getenv().getOrDefault("AWS_REGION", "eu-west-1"))).credentialsProvider(credentials)
                .httpClientBuilder(AwsCrtAsyncHttpClient.builder().maxConcurrency(512)).build();
    }

    /** The rental cycle straight to DynamoDB with bench/rental/Bench.java's reads and conditional writes. */
    void sdkCycles(DynamoDbAsyncClient dynamo, int c) throws Exception {
        List<String> bikes = new ArrayList<>();
        for (int i = 0; i < c; i++) {
            String id = "lab-" + run + "-sdk-" + c + "-" + i;
            bikes.add(id);
            dynamo.putItem(PutItemRequest.builder().tableName(Bench.TABLE).item(Bench.bike(id, "AVAILABLE", 0, null, 1))
                    .conditionExpression("attribute_not_exists(bikeId)").build()).join();
        }
        Step step = (client, point, intended) -> {
            String id = bikes.get(client);
            long start = System.nanoTime();
            Bench.sdkWrite(dynamo, id, "RENTED", "lab-c-" + client, 1);
            long mid = System.nanoTime();
            point.record(Outcome.OK, "rent", (mid - start) / 1000);
            Bench.sdkWrite(dynamo, id, "AVAILABLE", null, 0);
            point.record(Outcome.OK, "return", (System.nanoTime() - mid) / 1000);
            return 1;
        };
        warmUp(c, step);
        Point p = new Point();
        double elapsed = closedLoop(c, seconds, p, step, null);
        row("baseline", "sdk-rent-return", "sdk", "closed", c, 0, elapsed, p, "cycles/s", Map.of(), new String[] {"n/a", ""});
    }

    void sdkReads(DynamoDbAsyncClient dynamo, int c) throws Exception {
        List<String> bikes = readBikes();
        Step step = (client, point, intended) -> {
            dynamo.getItem(GetItemRequest.builder().tableName(Bench.TABLE).consistentRead(true)
                    .key(Map.of("bikeId", AttributeValue.fromS(bikes.get(client % bikes.size())))).build()).join();
            point.record(Outcome.OK, "get", (System.nanoTime() - intended) / 1000);
            return 1;
        };
        warmUp(c, step);
        Point p = new Point();
        double elapsed = closedLoop(c, seconds, p, step, null);
        row("baseline", "sdk-get", "sdk", "closed", c, 0, elapsed, p, "reads/s", Map.of(), new String[] {"n/a", ""});
    }

    // ---------------------------------------------------------------- load loops

    /** The warm-up's answers: not reported, but shown beside a failed invariant (its writes count there too). */
    Point warm;

    void warmUp(int c, Step step) throws Exception {
        warm = new Point();
        closedLoop(c, warmup, warm, step, null);
    }

    /** c threads, each running the step back to back for the given seconds (or until stop is set); elapsed seconds. */
    double closedLoop(int c, double duration, Point p, Step step, AtomicBoolean stop) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(c);
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[1];
        LongAdder successes = new LongAdder();
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < c; i++) {
            int client = i;
            running.add(pool.submit(() -> {
                go.await();
                long end = window[0] + (long) (duration * 1e9);
                while (System.nanoTime() < end && (stop == null || !stop.get())) {
                    successes.add(attempt(step, client, p, System.nanoTime()));
                }
                return null;
            }));
        }
        window[0] = System.nanoTime();
        p.recording = true;
        go.countDown();
        for (Future<?> f : running) {
            f.get();
        }
        double elapsed = (System.nanoTime() - window[0]) / 1e9;
        p.recording = false;
        p.successes.add(successes.sum());
        pool.shutdown();
        return elapsed;
    }

    /**
     * Fixed arrival rate: request i is due at start + i / rate; a worker that picks it up late still measures from the
     * due time. Workers = --open-connections: if all are busy, later requests start late and their latency shows it.
     */
    double openLoop(int rate, double duration, Point p, Step step) throws Exception {
        int workers = openLoopConnections;
        long total = (long) (rate * duration);
        double periodNanos = 1e9 / rate;
        AtomicLong next = new AtomicLong();
        LongAdder successes = new LongAdder();
        ExecutorService pool = Executors.newFixedThreadPool(workers);
        CountDownLatch go = new CountDownLatch(1);
        long[] start = new long[1];
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int client = w;
            running.add(pool.submit(() -> {
                go.await();
                for (long i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                    long due = start[0] + (long) (i * periodNanos);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(wait);
                    }
                    successes.add(attempt(step, client, p, due));
                }
                return null;
            }));
        }
        start[0] = System.nanoTime() + 50_000_000L;
        p.recording = true;
        go.countDown();
        for (Future<?> f : running) {
            f.get();
        }
        double elapsed = (System.nanoTime() - start[0]) / 1e9;
        p.recording = false;
        p.successes.add(successes.sum());
        pool.shutdown();
        return elapsed;
    }

    /** A request that failed below HTTP (reset, timeout) is an error of the point, not the end of the lab. */
    int attempt(Step step, int client, Point p, long intended) {
        try {
            return step.run(client, p, intended);
        } catch (Exception e) {
            p.record(Outcome.ERROR, "io " + e.getClass().getSimpleName(), (System.nanoTime() - intended) / 1000);
            return 0;
        }
    }

    // ---------------------------------------------------------------- output

    void row(String family, String scenario, String variant, String loop, int c, int rate, double elapsed, Point p, String unit,
            Map<String, Double> metrics, String[] invariant) {
        rowWithRate(family, scenario, variant, loop, c, rate, elapsed, p, p.successes.sum() / elapsed, unit, metrics, invariant);
    }

    void rowWithRate(String family, String scenario, String variant, String loop, int c, int rate, double elapsed, Point p,
            double goodput, String unit, Map<String, Double> metrics, String[] invariant) {
        long ok = p.ok.getTotalCount();
        long refused = p.refused.getTotalCount();
        Double retries = metrics.get("retries");
        long successes = p.successes.sum() > 0 ? p.successes.sum() : ok;
        String answers = answers(p);
        List<String> cells = new ArrayList<>(List.of(run, family, scenario, variant, loop, Integer.toString(c), Integer.toString(rate),
                f(elapsed), Long.toString(ok + refused + p.errors.sum()), Long.toString(ok), Long.toString(refused),
                Long.toString(p.errors.sum()), f(goodput), unit));
        cells.addAll(percentiles(p.ok));
        cells.addAll(percentiles(p.refused));
        cells.add(metric(metrics.get("conflicts")));
        cells.add(metric(retries));
        cells.add(metric(metrics.get("exhausted")));
        cells.add(retries == null || successes == 0 ? "" : f(retries / successes));
        cells.add(invariant[0]);
        Point warmed = warm;
        warm = null;
        cells.add(invariant[0].equals("FAILED") && warmed != null ? invariant[1] + "; warm-up answers: " + answers(warmed) : invariant[1]);
        cells.add(answers);
        csv.println(cells.stream().map(Lab::cell).collect(Collectors.joining(",")));
        if (loop.equals("closed")) {
            bestClosed.merge(scenario + "/" + variant, goodput, Math::max);
        }
        System.out.printf("%-8s %-18s %-18s %-6s c=%-4d rate=%-5d %9.1f %-10s ok p50/p99 %s/%s ms refused %d  invariant %s  %s%n",
                family, scenario, variant, loop, c, rate, goodput, unit, cells.get(14), cells.get(16), refused, invariant[0], answers);
    }

    static String answers(Point p) {
        return new TreeMap<>(p.answers).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue().sum()).collect(Collectors.joining("; "));
    }

    static List<String> percentiles(Histogram h) {
        if (h.getTotalCount() == 0) {
            return List.of("", "", "", "", "");
        }
        return List.of(ms(h.getValueAtPercentile(50)), ms(h.getValueAtPercentile(90)), ms(h.getValueAtPercentile(99)),
                ms(h.getValueAtPercentile(99.9)), ms(h.getMaxValue()));
    }

    static String ms(long micros) {
        return String.format(Locale.ROOT, "%.2f", micros / 1000.0);
    }

    static String f(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    static String metric(Double v) {
        return v == null ? "" : String.format(Locale.ROOT, "%.0f", v);
    }

    static String cell(String v) {
        return v.contains(",") || v.contains("\"") ? "\"" + v.replace("\"", "\"\"") + "\"" : v;
    }

    static Map<String, Double> delta(Map<String, Double> before, Map<String, Double> after) {
        Map<String, Double> d = new LinkedHashMap<>();
        after.forEach((k, v) -> d.put(k, v - before.getOrDefault(k, 0.0)));
        return d;
    }

    String metricsText() throws Exception {
        if (management.isEmpty()) {
            return null;
        }
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(management + "/q/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return r.statusCode() == 200 ? r.body() : null;
    }

    /** Sums the Prometheus series of a name whose labels contain every given fragment. */
    static double sum(String text, String name, String... fragments) {
        double total = 0;
        for (String line : text.split("\n")) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
                continue;
            }
            boolean all = true;
            for (String fragment : fragments) {
                all &= line.contains(fragment);
            }
            if (all) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }

    // ---------------------------------------------------------------- HTTP

    Client client() throws IOException {
        Client c = clients.get();
        if (c == null) {
            c = api.getScheme().equals("http") ? new SocketClient() : new JdkClient();
            clients.set(c);
        }
        return c;
    }

    /** Counts 201s of bookings per flight as they pass, for the audit (warm-up included). */
    void countBooking(String path, Answer a) {
        if (a.status() == 201 && path.contains("/bookings")) {
            booked.computeIfAbsent(path.split("/")[2], k -> new LongAdder()).increment();
        }
    }

    /** bench/rental/Bench.java's keep-alive socket client (it reads the bearer from TURNSTILE_TOKEN). */
    final class SocketClient implements Client {
        Bench.Connection connection;

        @Override
        public Answer send(String method, String path, String json) throws IOException {
            if (connection == null) {
                connection = new Bench.Connection(api);
            }
            Bench.Reply r;
            try {
                r = connection.exchange(method, api.getRawPath() + path, json, null);
            } catch (IOException e) {
                connection = null;
                throw e;
            }
            Answer a = Answer.of(r.status(), r.body());
            countBooking(path, a);
            return a;
        }
    }

    final class JdkClient implements Client {
        @Override
        public Answer send(String method, String path, String json) throws IOException {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(api + path)).timeout(Duration.ofSeconds(30))
                    .header("Authorization", "Bearer " + token);
            b = json == null ? b.method(method, HttpRequest.BodyPublishers.noBody())
                    : b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
            try {
                HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
                Answer a = Answer.of(r.statusCode(), r.body());
                countBooking(path, a);
                return a;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
    }

}
