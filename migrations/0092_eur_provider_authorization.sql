-- +goose Up
-- A sign request may carry the EUR provider's authorization to the owner's
-- device: the device signs "EUR provider authorization: <code>" as a
-- message, the server checks the signer is the EURe wallet's owner and
-- relays it once to POST /eu/kyc.
ALTER TABLE sign_requests DROP CONSTRAINT sign_requests_kind_check;
ALTER TABLE sign_requests ADD CONSTRAINT sign_requests_kind_check
    CHECK (kind IN ('proposal', 'owner_proof', 'workflow', 'eur_authorization'));

-- +goose Down
DELETE FROM sign_requests WHERE kind = 'eur_authorization';
ALTER TABLE sign_requests DROP CONSTRAINT sign_requests_kind_check;
ALTER TABLE sign_requests ADD CONSTRAINT sign_requests_kind_check
    CHECK (kind IN ('proposal', 'owner_proof', 'workflow'));
