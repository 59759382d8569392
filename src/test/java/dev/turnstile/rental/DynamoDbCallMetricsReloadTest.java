package dev.turnstile.rental;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

import org.junit.jupiter.api.Test;

/**
 * quarkus:dev loads the application's classes again on every live reload and keeps the libraries' classes, the AWS
 * SDK's among them. The SDK refuses a second {@code ExecutionAttribute} of a name it has seen, so an interceptor with
 * fixed attribute names failed the first reload: ExceptionInInitializerError while the DynamoDB client was built, and
 * the app stayed down until quarkus:dev was restarted. A live reload cannot be started from a test here (no dev-mode
 * test harness among the served artefacts), so this test does what the reload does to the class: it loads it a second
 * time in a class loader of its own, with the SDK shared, and initialises it.
 */
class DynamoDbCallMetricsReloadTest {

    @Test
    void theInterceptorCanBeLoadedAgainWhileTheSdkStays() throws Exception {
        String name = DynamoDbCallMetrics.class.getName();
        Class.forName(name, true, DynamoDbCallMetrics.class.getClassLoader());

        Class<?> reloaded = assertDoesNotThrow(() -> Class.forName(name, true, new ReloadingLoader(name)));
        assertNotSame(DynamoDbCallMetrics.class, reloaded);
    }

    /** Defines the one class itself, from the same bytes, and leaves every other class to the loader it came from. */
    private static final class ReloadingLoader extends ClassLoader {

        private final String reloaded;

        ReloadingLoader(String reloaded) {
            super(DynamoDbCallMetrics.class.getClassLoader());
            this.reloaded = reloaded;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(reloaded)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    byte[] bytes = bytesOf(name);
                    loaded = defineClass(name, bytes, 0, bytes.length);
                }
                return loaded;
            }
        }

        private byte[] bytesOf(String name) {
            try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                return in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
