-- One compression dictionary, by the id its frames record.
SELECT dict FROM zstd_dicts WHERE dict_id = :dict_id;
