-- +goose Up
-- A relayed signature whose outcome is unknown is read back through the
-- rail that asked for it: find a payout or a SEPA/MXN order by the sign
-- request that carries its signature.
CREATE INDEX payouts_sign_request ON payouts (sign_request_id) WHERE sign_request_id IS NOT NULL;
CREATE INDEX sepa_mxn_orders_sign_request ON sepa_mxn_orders (sign_request_id) WHERE sign_request_id IS NOT NULL;
CREATE INDEX sepa_mxn_orders_burn_sign_request ON sepa_mxn_orders (burn_sign_request_id) WHERE burn_sign_request_id IS NOT NULL;

-- +goose Down
DROP INDEX sepa_mxn_orders_burn_sign_request;
DROP INDEX sepa_mxn_orders_sign_request;
DROP INDEX payouts_sign_request;
