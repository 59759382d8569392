package dev.turnstile.local;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** {@code turnstile.local-postgres.*}: what the dev and test profiles do to the local PostgreSQL at start. */
@ConfigMapping(prefix = "turnstile.local-postgres")
public interface LocalPostgresConfig {

    /** Create the configured database when it is missing, then migrate it (db/migration). Off in production. */
    @WithDefault("false")
    boolean prepare();
}
