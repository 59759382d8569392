import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;

/**
 * Rental benchmark (see docs/rental.md). Run by bench/rental/run.sh with the packaged app's jars on the class path:
 *   java -cp 'target/quarkus-app/lib/main/*' bench/rental/Bench.java <appUrl> <dynamoUrl> <clients> <seconds> <warmupSeconds>
 *
 * 1. HTTP: each client owns one bike and loops POST /rent + POST /return (one cycle = 2 requests, 4 DynamoDB calls).
 * 2. HTTP keyed: the same with a new Idempotency-Key per request, so the cost of the idempotency record shows (per
 *    request: GetItem of the record, GetItem of the bike, claim PutItem, bike PutItem, complete UpdateItem).
 * 3. SDK baseline: the same conditional writes the service issues for a keyless rent and return (consistent GetItem,
 *    then PutItem of the item with a new write stamp under "same version, same generation, no live lease") straight through
 *    DynamoDbAsyncClient (aws-crt, as the app) on the same dynalite.
 * 4. GET /bikes/{id}: latency percentiles at the same concurrency.
 */
public class Bench {

    static final String TABLE = "turnstile-bikes";
    /** One keep-alive connection per client thread: a load client that costs little CPU next to the app. */
    static final ThreadLocal<Connection> CONNECTIONS = new ThreadLocal<>();
    static URI appUri;
    /** A staff token (TURNSTILE_TOKEN, from run.sh): staff act for the customer each body names and are not rate-limited. */
    static final String BEARER = "Authorization: Bearer " + System.getenv("TURNSTILE_TOKEN") + "\r\n";

    record Reply(int status, String body) {
    }

    /** Minimal HTTP/1.1 over a persistent socket; enough for Quarkus' answers, which carry content-length. */
    static final class Connection {
        final Socket socket;
        final InputStream in;
        final OutputStream out;

        Connection(URI uri) throws IOException {
            socket = new Socket(uri.getHost(), uri.getPort());
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream(), 16384);
            out = socket.getOutputStream();
        }

        Reply exchange(String method, String path, String json, String idempotencyKey) throws IOException {
            byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
            String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + BEARER
                    + (json == null ? "" : "Content-Type: application/json\r\n")
                    + (idempotencyKey == null ? "" : "Idempotency-Key: " + idempotencyKey + "\r\n")
                    + "Content-Length: " + body.length + "\r\n\r\n";
            out.write(head.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            String status = line();
            int length = 0;
            for (String header = line(); !header.isEmpty(); header = line()) {
                if (header.regionMatches(true, 0, "content-length:", 0, 15)) {
                    length = Integer.parseInt(header.substring(15).trim());
                }
            }
            byte[] reply = in.readNBytes(length);
            return new Reply(Integer.parseInt(status.substring(9, 12)), new String(reply, StandardCharsets.UTF_8));
        }

        private String line() throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream(64);
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0) {
                    throw new IOException("connection closed");
                }
                if (c != '\r') {
                    line.write(c);
                }
            }
            return line.toString(StandardCharsets.US_ASCII);
        }
    }

    static Reply call(String method, String path, String json) throws IOException {
        return call(method, path, json, null);
    }

    static Reply call(String method, String path, String json, String idempotencyKey) throws IOException {
        Connection connection = CONNECTIONS.get();
        if (connection == null) {
            connection = new Connection(appUri);
            CONNECTIONS.set(connection);
        }
        return connection.exchange(method, path, json, idempotencyKey);
    }

    interface Cycle {
        void run(int client) throws Exception;
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    static void run(String[] args) throws Exception {
        appUri = URI.create(args[0]);
        String app = "";
        String dynamoUrl = args[1];
        int clients = Integer.parseInt(args[2]);
        int seconds = Integer.parseInt(args[3]);
        int warmup = Integer.parseInt(args[4]);
        String run = UUID.randomUUID().toString().substring(0, 8);

        DynamoDbAsyncClient dynamo = DynamoDbAsyncClient.builder()
                .endpointOverride(URI.create(dynamoUrl))
                .region(Region.EU_WEST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClientBuilder(AwsCrtAsyncHttpClient.builder().maxConcurrency(clients * 2))
                .build();

        String[] httpBikes = new String[clients];
        String[] sdkBikes = new String[clients];
        for (int i = 0; i < clients; i++) {
            httpBikes[i] = "bench-http-" + run + "-" + i;
            sdkBikes[i] = "bench-sdk-" + run + "-" + i;
            check(post(app + "/bikes", "{\"bikeId\":\"" + httpBikes[i] + "\",\"station\":\"bench\"}"), 201);
            dynamo.putItem(PutItemRequest.builder().tableName(TABLE).item(bike(sdkBikes[i], "AVAILABLE", 0, null, 1, UUID.randomUUID().toString()))
                    .conditionExpression("attribute_not_exists(bikeId)").build()).join();
        }

        Cycle viaHttp = client -> {
            String bike = app + "/bikes/" + httpBikes[client];
            check(post(bike + "/rent", "{\"customerId\":\"c-" + client + "\"}"), 200);
            check(post(bike + "/return", "{\"customerId\":\"c-" + client + "\",\"station\":\"bench\"}"), 200);
        };
        Cycle viaHttpKeyed = client -> {
            String bike = app + "/bikes/" + httpBikes[client];
            check(postKeyed(bike + "/rent", "{\"customerId\":\"c-" + client + "\"}"), 200);
            check(postKeyed(bike + "/return", "{\"customerId\":\"c-" + client + "\",\"station\":\"bench\"}"), 200);
        };
        Cycle viaSdk = client -> {
            sdkWrite(dynamo, sdkBikes[client], "RENTED", "c-" + client, 1);
            sdkWrite(dynamo, sdkBikes[client], "AVAILABLE", null, 0);
        };

        System.out.printf("clients=%d seconds=%d warmup=%d%n", clients, seconds, warmup);
        measure("warmup http", clients, warmup, viaHttp);
        measure("warmup sdk", clients, warmup, viaSdk);
        measure("warmup http keyed", clients, warmup, viaHttpKeyed);
        // keyless HTTP and SDK back to back, as before the keyed phase existed; the keyed phase last
        double http = measure("HTTP rent+return cycles/s", clients, seconds, viaHttp);
        double sdk = measure("SDK  rent+return cycles/s", clients, seconds, viaSdk);
        double keyed = measure("HTTP keyed rent+return cycles/s", clients, seconds, viaHttpKeyed);
        System.out.printf("RESULT http_cycles_per_s=%.1f sdk_cycles_per_s=%.1f ratio=%.2f%n", http, sdk, http / sdk);
        System.out.printf("RESULT http_keyed_cycles_per_s=%.1f keyed_ratio=%.2f keyed_vs_keyless=%.2f%n", keyed, keyed / sdk,
                keyed / http);

        long[][] latencies = new long[clients][];
        measureGets(app, httpBikes, warmup, new long[clients][]);
        long total = measureGets(app, httpBikes, seconds, latencies);
        long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
        System.out.printf("RESULT get_requests=%d get_per_s=%.0f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f%n", total,
                (double) total / seconds, percentile(all, 50), percentile(all, 99), all[all.length - 1] / 1e6);
        dynamo.close();
    }

    /** Read, decide, conditional write: what RentalService does for one keyless rent or return, minus HTTP and JSON. */
    static void sdkWrite(DynamoDbAsyncClient dynamo, String bikeId, String status, String rentedBy, int rideDelta) {
        Map<String, AttributeValue> read = dynamo.getItem(GetItemRequest.builder().tableName(TABLE).consistentRead(true)
                .key(Map.of("bikeId", AttributeValue.fromS(bikeId))).build()).join().item();
        long version = Long.parseLong(read.get("version").n());
        String generation = read.get("generation").s();
        int rides = Integer.parseInt(read.get("ridesSinceService").n()) + rideDelta;
        dynamo.putItem(PutItemRequest.builder().tableName(TABLE).item(bike(bikeId, status, rides, rentedBy, version + 1, generation))
                .conditionExpression("#version = :expected AND #generation = :generation"
                        + " AND (attribute_not_exists(leaseExpiresAt) OR leaseExpiresAt <= :now)")
                .expressionAttributeNames(Map.of("#version", "version", "#generation", "generation"))
                .expressionAttributeValues(Map.of(":expected", AttributeValue.fromN(Long.toString(version)),
                        ":generation", AttributeValue.fromS(generation),
                        ":now", AttributeValue.fromN(Long.toString(java.time.Instant.now().getEpochSecond()))))
                .returnValuesOnConditionCheckFailure("ALL_OLD")
                .build()).join();
    }

    static Map<String, AttributeValue> bike(String bikeId, String status, int rides, String rentedBy, long version,
            String generation) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put("generation", AttributeValue.fromS(generation));
        item.put("writeId", AttributeValue.fromS(UUID.randomUUID().toString()));
        item.put("bikeId", AttributeValue.fromS(bikeId));
        item.put("station", AttributeValue.fromS("bench"));
        item.put("status", AttributeValue.fromS(status));
        item.put("ridesSinceService", AttributeValue.fromN(Integer.toString(rides)));
        item.put("version", AttributeValue.fromN(Long.toString(version)));
        if (rentedBy != null) {
            item.put("rentedBy", AttributeValue.fromS(rentedBy));
            item.put("rentedAt", AttributeValue.fromS(java.time.Instant.now().toString()));
        }
        return item;
    }

    static double measure(String label, int clients, int seconds, Cycle cycle) throws Exception {
        AtomicLong cycles = new AtomicLong();
        long elapsed = runFor(clients, seconds, client -> {
            cycle.run(client);
            cycles.incrementAndGet();
        });
        double rate = cycles.get() / (elapsed / 1e9);
        System.out.printf("%-28s %9.1f  (%d cycles in %.1f s)%n", label, rate, cycles.get(), elapsed / 1e9);
        return rate;
    }

    static long measureGets(String app, String[] bikes, int seconds, long[][] latencies) throws Exception {
        int clients = bikes.length;
        long[][] buffers = new long[clients][2_000_000 / clients];
        int[] counts = new int[clients];
        runFor(clients, seconds, client -> {
            long start = System.nanoTime();
            Reply response = call("GET", app + "/bikes/" + bikes[client], null);
            long took = System.nanoTime() - start;
            if (response.status() != 200) {
                throw new IllegalStateException("GET answered " + response.status());
            }
            if (counts[client] < buffers[client].length) {
                buffers[client][counts[client]++] = took;
            }
        });
        long total = 0;
        for (int i = 0; i < clients; i++) {
            latencies[i] = Arrays.copyOf(buffers[i], counts[i]);
            total += counts[i];
        }
        return total;
    }

    /** Runs {@code clients} threads, each calling the cycle in a loop until the time is up; returns nanoseconds. */
    static long runFor(int clients, int seconds, Cycle cycle) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        CountDownLatch start = new CountDownLatch(1);
        long[] window = new long[1];
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            int client = i;
            running.add(pool.submit(() -> {
                start.await();
                long end = window[0] + seconds * 1_000_000_000L;
                while (System.nanoTime() < end) {
                    cycle.run(client);
                }
                return null;
            }));
        }
        window[0] = System.nanoTime();
        start.countDown();
        for (Future<?> future : running) {
            future.get();
        }
        long elapsed = System.nanoTime() - window[0];
        pool.shutdown();
        return elapsed;
    }

    static Reply post(String path, String json) throws Exception {
        return call("POST", path, json);
    }

    static Reply postKeyed(String path, String json) throws Exception {
        return call("POST", path, json, UUID.randomUUID().toString());
    }

    static void check(Reply response, int expected) {
        if (response.status() != expected) {
            throw new IllegalStateException("expected " + expected + ", got " + response.status() + ": " + response.body());
        }
    }

    static double percentile(long[] sorted, double p) {
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, index)] / 1e6;
    }
}
