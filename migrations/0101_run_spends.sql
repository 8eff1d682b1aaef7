-- +goose Up
-- A payroll run is decided as a whole when it starts: its rows are summed
-- per wallet and recorded as one spend per wallet under the run's send
-- action, so one action may now hold a spend on each of several wallets.
ALTER TABLE policy_spends DROP CONSTRAINT policy_spends_pkey;
ALTER TABLE policy_spends ADD PRIMARY KEY (action_key, wallet_id);

-- +goose Down
ALTER TABLE policy_spends DROP CONSTRAINT policy_spends_pkey;
ALTER TABLE policy_spends ADD PRIMARY KEY (action_key);
