package dev.turnstile.identity;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpServer;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.smallrye.jwt.util.KeyUtils;

/**
 * An identity provider's key set endpoint (JWKS) serving the dev public key, as a URL the app fetches and refreshes.
 * Its answers may be kept one second ({@code Cache-Control: max-age=1}), so a test sees a refresh soon; a test can
 * make it fail ({@link #failing}), as a provider does in an outage.
 */
public final class KeySetServer implements QuarkusTestResourceLifecycleManager {

    static final AtomicBoolean failing = new AtomicBoolean();
    static final AtomicInteger fetches = new AtomicInteger();

    private HttpServer server;
    /** How long the app remembers a verified token: 0 (by default) sends every request's token to the key set. */
    private String verifiedTokensMaxAge = "0";

    @Override
    public void init(Map<String, String> initArgs) {
        verifiedTokensMaxAge = initArgs.getOrDefault("verified-tokens.max-age", verifiedTokensMaxAge);
    }

    @Override
    public Map<String, String> start() {
        byte[] keySet = keySet().getBytes(StandardCharsets.UTF_8);
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/jwks", exchange -> {
            fetches.incrementAndGet();
            if (failing.get()) {
                exchange.sendResponseHeaders(503, -1);
            } else {
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.getResponseHeaders().add("Cache-Control", "max-age=1");
                exchange.sendResponseHeaders(200, keySet.length);
                try (OutputStream body = exchange.getResponseBody()) {
                    body.write(keySet);
                }
            }
            exchange.close();
        });
        server.start();
        return Map.of("turnstile.identity.public-key-location",
                "http://127.0.0.1:" + server.getAddress().getPort() + "/jwks",
                "turnstile.identity.verified-tokens.max-age", verifiedTokensMaxAge);
    }

    @Override
    public void stop() {
        server.stop(0);
        failing.set(false);
    }

    private static String keySet() {
        try {
            RSAPublicKey key = (RSAPublicKey) KeyUtils.decodePublicKey(Files.readString(Path.of("local/dev-keys/public.pem")));
            return "{\"keys\":[{\"kty\":\"RSA\",\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\"" + base64Url(key.getModulus())
                    + "\",\"e\":\"" + base64Url(key.getPublicExponent()) + "\"}]}";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** An unsigned big-endian integer, as JWK wants it (RFC 7518 6.3.1: no leading zero byte). */
    private static String base64Url(BigInteger value) {
        byte[] bytes = value.toByteArray();
        if (bytes.length > 1 && bytes[0] == 0) {
            bytes = Arrays.copyOfRange(bytes, 1, bytes.length);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
