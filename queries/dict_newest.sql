-- The compression dictionary new files are stored with: the newest trained.
SELECT dict_id, dict, trained_files
FROM zstd_dicts
ORDER BY trained_files DESC, dict_id DESC
LIMIT 1;
