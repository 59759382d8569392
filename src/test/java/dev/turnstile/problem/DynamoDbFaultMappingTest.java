package dev.turnstile.problem;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;

import jakarta.ws.rs.core.Response;

import org.junit.jupiter.api.Test;

import io.quarkus.vertx.http.runtime.CurrentVertxRequest;

import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.RequestLimitExceededException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/** DynamoDB's transient faults answer 503 STORE_UNAVAILABLE with Retry-After; anything else stays a 500. */
class DynamoDbFaultMappingTest {

    private final ProblemMappers mappers = new ProblemMappers(new CurrentVertxRequest());

    @Test
    void timeoutsAndConnectionFailuresAre503() {
        for (SdkClientException failure : List.of(
                ApiCallTimeoutException.create(3000),
                ApiCallAttemptTimeoutException.create(2000),
                SdkClientException.create("Unable to execute HTTP request: Connection refused"))) {
            assertUnavailable(mappers.sdkClient(failure));
        }
    }

    @Test
    void throttlingIs503() {
        assertUnavailable(mappers.awsService(ProvisionedThroughputExceededException.builder().statusCode(400)
                .awsErrorDetails(details("ProvisionedThroughputExceededException")).build()));
        assertUnavailable(mappers.awsService(RequestLimitExceededException.builder().statusCode(400)
                .awsErrorDetails(details("RequestLimitExceeded")).build()));
        assertUnavailable(mappers.awsService(DynamoDbException.builder().statusCode(400)
                .awsErrorDetails(details("ThrottlingException")).build()));
        assertUnavailable(mappers.awsService(DynamoDbException.builder().statusCode(500)
                .awsErrorDetails(details("InternalServerError")).build()));
    }

    /** A transaction DynamoDB cancelled because an item's partition was throttled is as transient as a throttled write. */
    @Test
    void aTransactionCancelledByThrottlingIs503() {
        assertUnavailable(mappers.awsService(cancelled("ThrottlingError", "None", "None")));
        assertUnavailable(mappers.awsService(cancelled("None", "ProvisionedThroughputExceeded", "None")));
        assertEquals(500, mappers.awsService(cancelled("ValidationError", "None", "None")).getStatus());
    }

    private static TransactionCanceledException cancelled(String... codes) {
        return TransactionCanceledException.builder().statusCode(400)
                .awsErrorDetails(details("TransactionCanceledException"))
                .cancellationReasons(Arrays.stream(codes).map(code -> CancellationReason.builder().code(code).build()).toList())
                .build();
    }

    @Test
    void aRefusedRequestIsStillA500() {
        Response answer = mappers.awsService(DynamoDbException.builder().statusCode(400)
                .awsErrorDetails(details("ValidationException")).build());
        assertEquals(500, answer.getStatus());
    }

    private static AwsErrorDetails details(String code) {
        return AwsErrorDetails.builder().errorCode(code).errorMessage(code).build();
    }

    private static void assertUnavailable(Response answer) {
        assertEquals(503, answer.getStatus());
        assertEquals("1", String.valueOf(answer.getHeaders().getFirst("Retry-After")));
        assertEquals(StoreUnavailable.REASON, ((Problem) answer.getEntity()).getReason());
    }
}
