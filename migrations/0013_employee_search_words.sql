-- +goose Up
-- Search as you type matches the start of words: every word of an
-- employee's name, email and serviceUserId (split at ASCII punctuation and
-- spaces, lower-cased) is a row here, and a typed word is a btree range on
-- it. The trigram index it replaces matched anywhere inside the text but
-- read the posting lists of every common trigram ("son", "exa", ...) on
-- each keystroke; see README "Search".
CREATE TABLE employee_search_words (
    word        TEXT COLLATE "C" NOT NULL,
    employee_id BIGINT NOT NULL REFERENCES employees (id) ON DELETE CASCADE,
    PRIMARY KEY (word, employee_id)
);
-- The other way round, for a common word (walk the list in order and probe)
-- and for the trigger's delete.
CREATE INDEX employee_search_words_employee_key ON employee_search_words (employee_id, word);

-- employee_search_fold lower-cases for search, both what is indexed and what
-- is typed: with ICU's root locale where the server has ICU, so "Ñ" and "É"
-- fold whatever the database's locale (a --no-locale cluster's lower()
-- folds only ASCII); with plain lower() otherwise.
-- +goose StatementBegin
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu') THEN
        CREATE FUNCTION employee_search_fold(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN lower(t COLLATE "und-x-icu");
    ELSE
        CREATE FUNCTION employee_search_fold(t TEXT) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE
            RETURN lower(t);
    END IF;
END
$$;
-- +goose StatementEnd

-- employee_search_words_of is the rule both sides follow: fold, split at
-- runs of ASCII characters that are neither letters nor digits, at most 100
-- characters a word. store.searchWords splits typed text the same way.
-- +goose StatementBegin
CREATE FUNCTION employee_search_words_of(first_name TEXT, last_name TEXT, email TEXT, service_user_id TEXT)
RETURNS SETOF TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT DISTINCT left(w, 100)
    FROM regexp_split_to_table(employee_search_fold(first_name || ' ' || last_name || ' ' || email || ' ' || coalesce(service_user_id, '')),
        '[\x01-\x2f\x3a-\x60\x7b-\x7f]+') AS w
    WHERE w <> ''
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION employee_search_words_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.first_name = OLD.first_name AND NEW.last_name = OLD.last_name AND NEW.email = OLD.email
            AND NEW.service_user_id IS NOT DISTINCT FROM OLD.service_user_id THEN
            RETURN NULL;
        END IF;
        DELETE FROM employee_search_words WHERE employee_id = NEW.id;
    END IF;
    INSERT INTO employee_search_words (word, employee_id)
    SELECT w, NEW.id FROM employee_search_words_of(NEW.first_name, NEW.last_name, NEW.email, NEW.service_user_id) AS w;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER employee_search_words_sync AFTER INSERT OR UPDATE ON employees
    FOR EACH ROW EXECUTE FUNCTION employee_search_words_sync();

INSERT INTO employee_search_words (word, employee_id)
SELECT w, e.id FROM employees e, employee_search_words_of(e.first_name, e.last_name, e.email, e.service_user_id) AS w;

DROP INDEX employees_search_trgm;

-- +goose Down
CREATE INDEX employees_search_trgm ON employees
    USING gin ((lower(first_name || ' ' || last_name || ' ' || email || ' ' || coalesce(service_user_id, ''))) gin_trgm_ops);
DROP TRIGGER employee_search_words_sync ON employees;
DROP FUNCTION employee_search_words_sync();
DROP FUNCTION employee_search_words_of(TEXT, TEXT, TEXT, TEXT);
DROP FUNCTION employee_search_fold(TEXT);
DROP TABLE employee_search_words;
