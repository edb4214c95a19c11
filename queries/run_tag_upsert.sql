-- Set one tag of a run; an existing value of the key is replaced (rfdb tag).
INSERT INTO run_tags (run_id, key, value)
VALUES (:run_id, :key, :value)
ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value;
