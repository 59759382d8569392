-- Issue 10: an answer kept under an idempotency key is done or refused (a refusal's problem document carries its
-- own status); no HTTP status is stored any more. status_code stays for the keys stored before this column, read as
-- status_code >= 400 until they expire (turnstile.idempotency.ttl), and may be dropped after that.
ALTER TABLE idempotency_keys ADD COLUMN IF NOT EXISTS refused boolean;
