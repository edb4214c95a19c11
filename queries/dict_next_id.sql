-- The id of the next trained dictionary: zstd reserves ids below 32768.
SELECT ifnull(max(dict_id), 32767) + 1 AS dict_id FROM zstd_dicts;
