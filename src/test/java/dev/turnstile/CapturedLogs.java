package dev.turnstile;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The log records of one logger (and those below it) that a test is looking for, while it is open. */
public final class CapturedLogs implements AutoCloseable {

    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler;

    private CapturedLogs(Logger logger, Predicate<LogRecord> wanted) {
        this.logger = logger;
        this.handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (wanted.test(record)) {
                    records.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
    }

    /** Records of {@code loggerName} ("" for every logger) that {@code wanted} accepts, from now until closed. */
    public static CapturedLogs of(String loggerName, Predicate<LogRecord> wanted) {
        return new CapturedLogs(Logger.getLogger(loggerName), wanted);
    }

    public List<String> messages() {
        return records.stream().map(LogRecord::getMessage).toList();
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
    }
}
