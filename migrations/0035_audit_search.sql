-- +goose Up
-- The audit log is searched by any part of its actor, action, target and
-- detail (/audit?q=): a trigram index answers a substring that holds a
-- trigram without reading the whole log. The fields are joined with a line
-- break, which a search cannot contain, so no match spans two fields; an
-- empty actor is the system. store.auditSearchText is the same expression.
CREATE INDEX audit_log_search_trgm ON audit_log USING gin ((
    coalesce(nullif(actor_email, ''), 'system') || E'\n' || action || E'\n' || target || E'\n' || detail
) gin_trgm_ops);
-- The filters, each newest first (the log pages by id).
CREATE INDEX audit_log_actor_key ON audit_log (lower(actor_email), id DESC);
CREATE INDEX audit_log_action_id_key ON audit_log (action, id DESC);
CREATE INDEX audit_log_target_key ON audit_log (target, id DESC);

-- +goose Down
DROP INDEX audit_log_target_key;
DROP INDEX audit_log_action_id_key;
DROP INDEX audit_log_actor_key;
DROP INDEX audit_log_search_trgm;
