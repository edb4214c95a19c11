-- Store a trained compression dictionary.
INSERT INTO zstd_dicts (dict_id, dict, trained_files, samples, trained_at)
VALUES (:dict_id, :dict, :trained_files, :samples, :trained_at);
