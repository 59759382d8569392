package dev.turnstile.rental;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The bike item's codec: attribute names, item <-> {@link Bike}, and the conditions every bike write states. The
 * repository, the lease writes and the transactions all write the same item, so they all go through here.
 */
final class BikeItems {

    static final String KEY = "bikeId";

    static final Map<String, String> VERSION_NAME = Map.of("#version", "version");
    static final Map<String, String> VERSION_AND_STATUS_NAMES = Map.of("#version", "version", "#status", "status");
    /** The generation of bikes written before generations existed: they all share it. */
    static final String NO_GENERATION = "0";

    /** The names {@link #sameBike} uses. */
    static final Map<String, String> SAME_BIKE_NAMES = Map.of("#version", "version", "#generation", "generation");
    static final Map<String, String> SAME_BIKE_AND_STATUS_NAMES = Map.of("#version", "version", "#generation", "generation",
            "#status", "status");
    static final Map<String, String> STATUS_NAME = Map.of("#status", "status");

    /**
     * The stamp of the last stamped write: a save, a condition-only rent and a lease release each set it to an id of
     * its own ({@link #newWriteId}). The AWS SDK sends a write again, unchanged, when the first answer is lost (a
     * dropped connection, an attempt timeout, a 500 after the commit); the resend then fails its condition on what the
     * first send wrote, and only the stamp tells that apart from another writer's change. A create has its bike's
     * random generation for a stamp, a lease its token; transactions need none: DynamoDB recognises their resends by
     * the client request token.
     */
    static final String WRITE_ID = "writeId";

    private BikeItems() {
    }

    /** Unique enough among the writes on one item within the SDK's resend window; not a secret. */
    static String newWriteId() {
        return Long.toHexString(ThreadLocalRandom.current().nextLong());
    }

    /**
     * Whether the write stamped {@code writeId} is the last stamped write {@code item} took: one of its sends was
     * applied.
     */
    static boolean writtenBy(Map<String, AttributeValue> item, String writeId) {
        AttributeValue stamp = item.get(WRITE_ID);
        return stamp != null && writeId.equals(stamp.s());
    }

    /**
     * The optimistic lock, with its values put in {@code values}: the write applies only to the bike that was read, at
     * the version that was read. The generation is part of it: a bike deleted and created again under the same id
     * starts again at version 1, and a write prepared on its predecessor at version 1 would overwrite it.
     */
    static String sameBike(Map<String, AttributeValue> values, Bike seen) {
        values.put(":expected", number(seen.version()));
        if (seen.generation() == null || NO_GENERATION.equals(seen.generation())) {
            // an item older than generations has none until its first write stores the one it was read as
            values.put(":generation", AttributeValue.fromS(NO_GENERATION));
            return "#version = :expected AND (attribute_not_exists(#generation) OR #generation = :generation)";
        }
        values.put(":generation", AttributeValue.fromS(seen.generation()));
        return "#version = :expected AND #generation = :generation";
    }

    /**
     * The lease part of a write condition: no lease, an expired one, or the one {@code leaseToken} opens. With the
     * version condition this is redundant for a write prepared on a read, but it states the rule where it holds.
     */
    static String unleased(Map<String, AttributeValue> values, String leaseToken, Instant now) {
        values.put(":now", number(now.getEpochSecond()));
        if (leaseToken == null) {
            return "(attribute_not_exists(leaseExpiresAt) OR leaseExpiresAt <= :now)";
        }
        values.put(":leaseToken", AttributeValue.fromS(leaseToken));
        return "(attribute_not_exists(leaseExpiresAt) OR leaseExpiresAt <= :now OR leaseToken = :leaseToken)";
    }

    static Map<String, AttributeValue> key(String bikeId) {
        return Map.of(KEY, AttributeValue.fromS(bikeId));
    }

    static Map<String, AttributeValue> toItem(Bike bike) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(KEY, AttributeValue.fromS(bike.bikeId()));
        item.put("station", AttributeValue.fromS(bike.station()));
        item.put("status", AttributeValue.fromS(bike.status().name()));
        item.put("ridesSinceService", number(bike.ridesSinceService()));
        item.put("version", number(bike.version()));
        if (bike.rentedBy() != null) {
            item.put("rentedBy", AttributeValue.fromS(bike.rentedBy()));
        }
        if (bike.rentedAt() != null) {
            item.put("rentedAt", AttributeValue.fromS(bike.rentedAt().toString()));
        }
        if (bike.note() != null) {
            item.put("note", AttributeValue.fromS(bike.note()));
        }
        if (bike.generation() != null) {
            item.put("generation", AttributeValue.fromS(bike.generation()));
        }
        if (bike.leaseToken() != null) {
            item.put("leaseHolder", AttributeValue.fromS(bike.leaseHolder()));
            item.put("leaseToken", AttributeValue.fromS(bike.leaseToken()));
            item.put("leaseExpiresAt", number(bike.leaseExpiresAt().getEpochSecond()));
        }
        if (!bike.appliedKeys().isEmpty()) {
            item.put("appliedKeys", AttributeValue.fromL(bike.appliedKeys().stream().map(AttributeValue::fromS).toList()));
        }
        return item;
    }

    static Bike fromItem(Map<String, AttributeValue> item) {
        return new Bike(
                item.get(KEY).s(),
                item.get("station").s(),
                BikeStatus.valueOf(item.get("status").s()),
                Integer.parseInt(item.get("ridesSinceService").n()),
                text(item, "rentedBy"),
                item.containsKey("rentedAt") ? Instant.parse(item.get("rentedAt").s()) : null,
                text(item, "note"),
                Long.parseLong(item.get("version").n()),
                item.containsKey("generation") ? item.get("generation").s() : NO_GENERATION,
                text(item, "leaseHolder"),
                item.containsKey("leaseExpiresAt") ? Instant.ofEpochSecond(Long.parseLong(item.get("leaseExpiresAt").n())) : null,
                text(item, "leaseToken"),
                item.containsKey("appliedKeys") ? item.get("appliedKeys").l().stream().map(AttributeValue::s).toList() : List.of());
    }

    static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    private static String text(Map<String, AttributeValue> item, String name) {
        AttributeValue value = item.get(name);
        return value == null ? null : value.s();
    }
}
