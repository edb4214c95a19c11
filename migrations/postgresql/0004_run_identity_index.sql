-- The copy check (ingest) looks stored runs up by identity inside the write
-- transaction; without an index that scan grew with the history.
CREATE INDEX runs_identity ON runs (model, gfx, backend, isl, osl, conc);
