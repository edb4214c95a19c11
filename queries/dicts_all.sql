-- Every compression dictionary, by id (`rfdb check` loads each).
SELECT dict_id, dict FROM zstd_dicts ORDER BY dict_id;
