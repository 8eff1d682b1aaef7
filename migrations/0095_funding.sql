-- +goose Up
-- Crypto deposit addresses the Partner API issued for a user (POST
-- /deposit/wallet): the API has no call that lists them again, so the app
-- keeps what it was given, one address per user, chain and token.
CREATE TABLE deposit_addresses (
    service_user_id TEXT NOT NULL,
    chain           TEXT NOT NULL,
    currency        TEXT NOT NULL,
    address         TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    created_by      BIGINT REFERENCES staff (id),
    PRIMARY KEY (service_user_id, chain, currency)
);

-- Where an issued USD or NGN account's deposits are routed (POST and DELETE
-- .../smart-wallets/{smartWalletId}/onramp/vba/usd|nigeria): the API has no
-- call that reads a route back, so the app keeps the routes it made. A row
-- is a route in force; removing the route deletes it.
CREATE TABLE deposit_routes (
    service_user_id TEXT NOT NULL,
    rail            TEXT NOT NULL CHECK (rail IN ('USD', 'NGN')),
    wallet_id       TEXT NOT NULL,
    routed_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    routed_by       BIGINT REFERENCES staff (id),
    PRIMARY KEY (service_user_id, rail)
);

-- +goose Down
DROP TABLE deposit_routes;
DROP TABLE deposit_addresses;
