-- +goose Up
-- The Partner API's list of cash orders carries no currency. The app
-- records the wallet's when it creates an order, so the list can say it;
-- an order the app did not create is said to be created outside the app.
CREATE TABLE cash_orders (
    order_id   TEXT PRIMARY KEY,
    wallet_id  TEXT NOT NULL,
    token      TEXT NOT NULL,
    currency   TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE cash_orders;
