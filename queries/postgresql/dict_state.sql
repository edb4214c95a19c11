-- PostgreSQL text of queries/dict_state.sql: coalesce for ifnull.
-- What storing a file checks first (store/text_codec.cpp): the stored file
-- count (max source_id: one index lookup) and whether the dictionary the
-- writer compresses with is still stored (its transaction may have rolled back).
SELECT coalesce((SELECT max(source_id) FROM sources), 0) AS files,
       EXISTS (SELECT 1 FROM zstd_dicts WHERE dict_id = CAST(:dict_id AS bigint)) AS present;
