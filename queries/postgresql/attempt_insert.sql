-- PostgreSQL text of queries/attempt_insert.sql: RETURNING the new key (Database::last_insert_rowid).
-- One attempt with its prediction snapshot and outcome.
-- The columns: every member of src/store/attempt_fields.def (tools/embed_sql.cmake).
INSERT INTO attempts (/*@attempt_insert_columns*/)
VALUES (/*@attempt_insert_values*/)
RETURNING attempt_id;
