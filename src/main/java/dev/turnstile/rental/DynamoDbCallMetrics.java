package dev.turnstile.rental;

import java.util.UUID;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Singleton;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.arc.Unremovable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/**
 * DynamoDB calls as Micrometer meters: {@code turnstile.dynamodb.calls} (a timer per operation and outcome: success,
 * or the AWS error code, e.g. ConditionalCheckFailedException, or the client-side failure, e.g.
 * ApiCallTimeoutException) and {@code turnstile.dynamodb.sdk.retries} (the SDK's own retries of an operation).
 * amazon-services 3.15.1 has no setting for an SDK metric publisher; it does take execution interceptors
 * ({@code quarkus.dynamodb.interceptors}), looked up as CDI beans first, hence unremovable.
 */
@Singleton
@Unremovable
public class DynamoDbCallMetrics implements ExecutionInterceptor {

    /**
     * Makes the attribute names unique to this load of the class. The SDK refuses a second attribute of a name it has
     * seen for as long as its own classes live, and quarkus:dev loads this class again on every live reload while the
     * SDK stays loaded: fixed names failed the first reload, and the app stayed down until quarkus:dev was restarted.
     */
    private static final String LOAD = UUID.randomUUID().toString();
    private static final ExecutionAttribute<Long> STARTED = new ExecutionAttribute<>("turnstile.dynamodb.started." + LOAD);
    private static final ExecutionAttribute<Integer> TRANSMISSIONS = new ExecutionAttribute<>("turnstile.dynamodb.transmissions." + LOAD);

    private final MeterRegistry registry;

    DynamoDbCallMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        attributes.putAttribute(STARTED, System.nanoTime());
        attributes.putAttribute(TRANSMISSIONS, 0);
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        Integer sent = attributes.getAttribute(TRANSMISSIONS);
        attributes.putAttribute(TRANSMISSIONS, sent == null ? 1 : sent + 1);
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        record(attributes, "success");
    }

    @Override
    public void onExecutionFailure(Context.FailedExecution context, ExecutionAttributes attributes) {
        Throwable failure = context.exception();
        record(attributes, failure instanceof AwsServiceException service && service.awsErrorDetails() != null
                ? service.awsErrorDetails().errorCode()
                : failure.getClass().getSimpleName());
    }

    private void record(ExecutionAttributes attributes, String outcome) {
        Long started = attributes.getAttribute(STARTED);
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        if (started == null || operation == null) {
            return;
        }
        Timer.builder("turnstile.dynamodb.calls").description("DynamoDB operations, SDK retries included")
                .tag("operation", operation).tag("outcome", outcome)
                .register(registry).record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
        Integer sent = attributes.getAttribute(TRANSMISSIONS);
        if (sent != null && sent > 1) {
            Counter.builder("turnstile.dynamodb.sdk.retries").description("Requests the AWS SDK sent again within one operation")
                    .tag("operation", operation).register(registry).increment(sent - 1);
        }
    }
}
