#!/usr/bin/env bash
# Migrates a PostgreSQL database to the latest db/migration version with Flyway, the way production does (docs/ship.md):
# the packaged app run once with migrate-at-start and init-and-exit, so it migrates and exits without serving.
# Builds target/quarkus-app first when it is missing. The database must exist (Flyway does not create databases).
#   bash local/migrate.sh postgresql://127.0.0.1:5432/turnstile [user]
set -euo pipefail
cd "$(dirname "$0")/.."
# The packaged build does not start without identity settings, even to migrate; locally it gets the dev ones.
[ -n "${TURNSTILE_IDENTITY_ISSUER:-}" ] || { set -a; . local/dev-identity.env; set +a; }
url="${1:?usage: local/migrate.sh postgresql://HOST:PORT/DATABASE [user]}"
user="${2:-postgres}"
[ -f target/quarkus-app/quarkus-run.jar ] || ./mvnw -q -B package -DskipTests
QUARKUS_FLYWAY_MIGRATE_AT_START=true QUARKUS_INIT_AND_EXIT=true \
  QUARKUS_DATASOURCE_REACTIVE_URL="$url" QUARKUS_DATASOURCE_JDBC_URL="jdbc:$url" QUARKUS_DATASOURCE_USERNAME="$user" \
  QUARKUS_LOG_LEVEL=WARN QUARKUS_LOG_CATEGORY__ORG_FLYWAYDB__LEVEL=INFO \
  java -jar target/quarkus-app/quarkus-run.jar
