package dev.turnstile.booking;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.vertx.pgclient.PgConnectOptions;

/**
 * A TCP proxy between the app and PostgreSQL that a test can cut: {@link #resetAll()} drops every connection with a
 * TCP reset (a dropped connection), {@link #down()} also stops listening (a restart: "Connection refused"),
 * {@link #dropAfterNextCommit()} forwards the next COMMIT and drops the connection instead of forwarding the
 * server's answer (a committed transaction whose answer was lost), {@link #stall()} holds every byte in either
 * direction on connections that stay open (a hung server, or a network that drops packets without a reset) until
 * {@link #flow()}. Plain blocking sockets: this is test code.
 */
public final class PostgresProxy implements QuarkusTestResourceLifecycleManager {

    /** The running proxy; one per test resource lifecycle, which is one per app start. */
    static volatile PostgresProxy current;

    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean dropNextCommit = new AtomicBoolean();
    private final AtomicInteger droppedCommits = new AtomicInteger();
    private volatile boolean stalled;
    private volatile ServerSocket server;
    private String targetHost;
    private int targetPort;
    private int port;

    @Override
    public Map<String, String> start() {
        String url = System.getenv().getOrDefault("QUARKUS_DATASOURCE_REACTIVE_URL", "postgresql://127.0.0.1:5432/turnstile_test");
        PgConnectOptions target = PgConnectOptions.fromUri(url);
        targetHost = target.getHost();
        targetPort = target.getPort();
        listen(0);
        current = this;
        return Map.of("quarkus.datasource.reactive.url",
                "postgresql://127.0.0.1:" + port + "/" + target.getDatabase());
    }

    @Override
    public void stop() {
        down();
        current = null;
    }

    /** Drops every open connection with a TCP reset; new connections are still accepted. */
    void resetAll() {
        links.forEach(Link::reset);
    }

    /** PostgreSQL is away: nothing listens on the proxy's port, and every open connection is reset. */
    synchronized void down() {
        closeQuietly(server);
        server = null;
        resetAll();
    }

    /** PostgreSQL is back on the same port. */
    synchronized void up() {
        if (server == null) {
            listen(port);
        }
    }

    /** The next COMMIT reaches PostgreSQL, but its answer never reaches the app: the connection is reset instead. */
    void dropAfterNextCommit() {
        dropNextCommit.set(true);
    }

    /** Bytes stop flowing, both ways, on every connection; nothing is closed. */
    void stall() {
        stalled = true;
    }

    /** What was held goes on, in order. */
    void flow() {
        stalled = false;
    }

    int droppedCommits() {
        return droppedCommits.get();
    }

    private void listen(int onPort) {
        try {
            ServerSocket socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", onPort));
            port = socket.getLocalPort();
            server = socket;
            daemon("pg-proxy-accept", () -> accept(socket));
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on 127.0.0.1:" + onPort, e);
        }
    }

    private void accept(ServerSocket socket) {
        while (!socket.isClosed()) {
            try {
                Socket app = socket.accept();
                // Under down()'s lock: a connection accepted just before down() closed the port must not slip past
                // its resetAll() and keep PostgreSQL reachable while it is "away".
                synchronized (this) {
                    if (server != socket) {
                        closeQuietly(app);
                        return;
                    }
                    Socket postgres = new Socket(targetHost, targetPort);
                    Link link = new Link(app, postgres);
                    links.add(link);
                    daemon("pg-proxy-up", () -> link.pump(true));
                    daemon("pg-proxy-down", () -> link.pump(false));
                }
            } catch (IOException closed) {
                return;
            }
        }
    }

    private final class Link {
        private final Socket app;
        private final Socket postgres;
        private volatile boolean committing;

        Link(Socket app, Socket postgres) {
            this.app = app;
            this.postgres = postgres;
        }

        /** Copies app -> PostgreSQL ({@code up}) or back, until either side closes. */
        void pump(boolean up) {
            byte[] buffer = new byte[16384];
            try (InputStream in = (up ? app : postgres).getInputStream()) {
                OutputStream out = (up ? postgres : app).getOutputStream();
                for (int n; (n = in.read(buffer)) >= 0;) {
                    if (up && contains(buffer, n, COMMIT_QUERY) && dropNextCommit.compareAndSet(true, false)) {
                        committing = true;
                    } else if (!up && committing && contains(buffer, n, COMMIT_DONE)) {
                        // the answers before the COMMIT's went through; the COMMIT's own is lost
                        droppedCommits.incrementAndGet();
                        reset();
                        return;
                    }
                    while (stalled) {
                        Thread.sleep(10);
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException closed) {
                // the other side went, or the test cut the link
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
            reset();
        }

        void reset() {
            links.remove(this);
            for (Socket socket : new Socket[] { app, postgres }) {
                try {
                    socket.setSoLinger(true, 0);
                } catch (IOException alreadyClosed) {
                    // nothing to reset
                }
                closeQuietly(socket);
            }
        }
    }

    /**
     * A simple-query message ('Q', length 11) carrying COMMIT, as Turnstile ends a transaction; it may share a read
     * with the statements sent before it, since the service pipelines them.
     */
    private static final byte[] COMMIT_QUERY = { 'Q', 0, 0, 0, 11, 'C', 'O', 'M', 'M', 'I', 'T', 0 };
    /** PostgreSQL's CommandComplete ('C', length 11) for that COMMIT. */
    private static final byte[] COMMIT_DONE = { 'C', 0, 0, 0, 11, 'C', 'O', 'M', 'M', 'I', 'T', 0 };

    private static boolean contains(byte[] buffer, int length, byte[] message) {
        outer:
        for (int i = 0; i + message.length <= length; i++) {
            for (int j = 0; j < message.length; j++) {
                if (buffer[i + j] != message[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(java.io.Closeable closeable) {
        try {
            if (closeable != null) {
                closeable.close();
            }
        } catch (IOException ignored) {
            // closing is all we wanted
        }
    }
}
