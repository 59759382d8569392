# Sourced by bench/startup/run.sh and bench/native/run.sh: how the measured app finds its stores and ports, the same
# for the JVM and the native runs. Needs PORT (the management port is PORT+1), DB and DYNAMO_PORT; run from the
# repository root (local/token.js).
export QUARKUS_HTTP_PORT=$PORT
export QUARKUS_MANAGEMENT_PORT=$((PORT + 1))   # /q/health, which startup.mjs polls for readiness
# Every API request carries a staff token (startup.mjs): staff may act for the many customers and passengers of the
# load loops and are not rate limited.
BENCH_TOKEN=$(node local/token.js --sub bench --roles staff --ttl 86400)
export BENCH_TOKEN
export QUARKUS_DATASOURCE_REACTIVE_URL=postgresql://127.0.0.1:5432/$DB
export QUARKUS_DATASOURCE_USERNAME=postgres
export QUARKUS_DYNAMODB_ENDPOINT_OVERRIDE=http://127.0.0.1:$DYNAMO_PORT
export QUARKUS_DYNAMODB_AWS_CREDENTIALS_TYPE=static
export QUARKUS_DYNAMODB_AWS_CREDENTIALS_STATIC_PROVIDER_ACCESS_KEY_ID=local
export QUARKUS_DYNAMODB_AWS_CREDENTIALS_STATIC_PROVIDER_SECRET_ACCESS_KEY=local
export AWS_REGION=eu-west-1
# The load loops rent and return the same bike over and over and book one hot fare: without these, bikes reach
# their service limit (409 SERVICE_DUE) and hot-row conflicts run out of retries, which the "failed" column would
# count as if the service had failed.
export TURNSTILE_RENTAL_RIDES_UNTIL_SERVICE=2000000000
export TURNSTILE_BOOKING_DEFAULT_STRATEGY=atomic
