-- +goose Up
-- Hits on rate-limited public routes (the device's signing links), keyed by
-- route and client address, so the limit holds across replicas.
CREATE TABLE rate_limit_hits (
    key TEXT        NOT NULL,
    at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX rate_limit_hits_key_at_idx ON rate_limit_hits (key, at);

-- +goose Down
DROP TABLE rate_limit_hits;
