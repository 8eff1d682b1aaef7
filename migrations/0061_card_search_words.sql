-- +goose Up
-- Card search matches the start of words, as the employee list's does
-- (0013): every word of a card's search_text (owner's name and email, card
-- name, last four, id; split at runs of ASCII characters that are neither
-- letters nor digits) is a row here, and a typed word is a btree range on
-- it. The trigram index it replaces answered "person01021" by reading the
-- posting lists of trigrams every card has ("per", "son", "on0", ...), and
-- a pattern the planner could see made PostgreSQL plan the search afresh on
-- every keystroke.
CREATE TABLE card_search_words (
    word    TEXT COLLATE "C" NOT NULL,
    card_id TEXT NOT NULL REFERENCES cards (id) ON DELETE CASCADE,
    PRIMARY KEY (word, card_id)
);
-- The other way round, for a card's other typed words (probed per row) and
-- for the trigger's delete.
CREATE INDEX card_search_words_card_key ON card_search_words (card_id, word);

-- card_search_words_of is the rule: search_text is lower-cased by the app
-- (store.cardSearchText), split here as store.searchWords splits typed
-- text, at most 100 characters a word.
-- +goose StatementBegin
CREATE FUNCTION card_search_words_of(search_text TEXT)
RETURNS SETOF TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT DISTINCT left(w, 100)
    FROM regexp_split_to_table(search_text, '[\x01-\x2f\x3a-\x60\x7b-\x7f]+') AS w
    WHERE w <> ''
$$;
-- +goose StatementEnd

-- The words follow search_text in the transaction that writes it: the
-- card's row lock orders two writers of one card, and the second one's
-- delete sees the first one's words once it has committed.
-- +goose StatementBegin
CREATE FUNCTION card_search_words_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        IF NEW.search_text = OLD.search_text THEN
            RETURN NULL;
        END IF;
        DELETE FROM card_search_words WHERE card_id = NEW.id;
    END IF;
    INSERT INTO card_search_words (word, card_id)
    SELECT w, NEW.id FROM card_search_words_of(NEW.search_text) AS w
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;
-- +goose StatementEnd

CREATE TRIGGER card_search_words_sync AFTER INSERT OR UPDATE OF search_text ON cards
    FOR EACH ROW EXECUTE FUNCTION card_search_words_sync();

INSERT INTO card_search_words (word, card_id)
SELECT w, c.id FROM cards c, card_search_words_of(c.search_text) AS w;

DROP INDEX cards_search_trgm;

-- +goose Down
CREATE INDEX cards_search_trgm ON cards USING gin (search_text gin_trgm_ops);
DROP TRIGGER card_search_words_sync ON cards;
DROP FUNCTION card_search_words_sync();
DROP FUNCTION card_search_words_of(TEXT);
DROP TABLE card_search_words;
