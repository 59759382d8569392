package dev.turnstile.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.sun.net.httpserver.HttpServer;

import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.WebIdentityTokenFileCredentialsProvider;

/**
 * IRSA, as deploy/kubernetes sets it up: EKS mounts a web identity token into the pod and names it and the role in
 * AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN; the SDK's default credentials chain trades the token for credentials
 * with STS. The SDK loads its STS client by name and skips this step when the sts module is not packaged ("To use
 * web identity tokens, the 'sts' service module must be on the class path"): the pod then found no credentials or the
 * node's, and readiness (DescribeTable) stayed DOWN. Here the provider trades a token with a local STS stand-in,
 * through the HTTP client the build packages (aws-crt's).
 */
class WebIdentityCredentialsTest {

    private static final String ANSWER = """
            <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
              <AssumeRoleWithWebIdentityResult>
                <Credentials>
                  <AccessKeyId>ASIATURNSTILETEST</AccessKeyId>
                  <SecretAccessKey>secret-from-sts</SecretAccessKey>
                  <SessionToken>session-from-sts</SessionToken>
                  <Expiration>2099-01-01T00:00:00Z</Expiration>
                </Credentials>
                <SubjectFromWebIdentityToken>system:serviceaccount:turnstile:turnstile</SubjectFromWebIdentityToken>
                <AssumedRoleUser>
                  <Arn>arn:aws:sts::123456789012:assumed-role/turnstile/pod</Arn>
                  <AssumedRoleId>AROATURNSTILE:pod</AssumedRoleId>
                </AssumedRoleUser>
              </AssumeRoleWithWebIdentityResult>
              <ResponseMetadata><RequestId>test</RequestId></ResponseMetadata>
            </AssumeRoleWithWebIdentityResponse>
            """;

    @Test
    void aPodsWebIdentityTokenIsTradedForCredentialsWithSts(@TempDir Path dir) throws IOException {
        Path token = Files.writeString(dir.resolve("token"), "eyJ.projected-service-account-token.sig");
        AtomicReference<String> asked = new AtomicReference<>();
        HttpServer sts = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        sts.createContext("/", exchange -> {
            asked.set(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] body = ANSWER.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/xml");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        sts.start();
        String endpoint = System.getProperty("aws.endpointUrlSts");
        String region = System.getProperty("aws.region");
        System.setProperty("aws.endpointUrlSts", "http://127.0.0.1:" + sts.getAddress().getPort());
        System.setProperty("aws.region", "eu-west-1");
        try (WebIdentityTokenFileCredentialsProvider provider = WebIdentityTokenFileCredentialsProvider.builder()
                .roleArn("arn:aws:iam::123456789012:role/turnstile")
                .roleSessionName("pod")
                .webIdentityTokenFile(token)
                .build()) {
            AwsSessionCredentials credentials = (AwsSessionCredentials) provider.resolveCredentials();

            assertEquals("ASIATURNSTILETEST", credentials.accessKeyId());
            assertEquals("session-from-sts", credentials.sessionToken());
            assertTrue(asked.get().contains("Action=AssumeRoleWithWebIdentity"), asked.get());
            assertTrue(asked.get().contains("WebIdentityToken=eyJ.projected-service-account-token.sig"), asked.get());
        } finally {
            restore("aws.endpointUrlSts", endpoint);
            restore("aws.region", region);
            sts.stop(0);
        }
    }

    private static void restore(String name, String value) {
        if (value == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, value);
        }
    }
}
