-- +goose Up
-- Approvals in the app that a spending policy's step-up tier asks for
-- above an amount, before the owner's signature is asked for, whatever the
-- Partner API's own threshold: one per person and proposal.
CREATE TABLE step_up_approvals (
    proposal_id TEXT        NOT NULL,
    staff_id    BIGINT      NOT NULL REFERENCES staff (id),
    at          TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (proposal_id, staff_id)
);

-- +goose Down
DROP TABLE step_up_approvals;
