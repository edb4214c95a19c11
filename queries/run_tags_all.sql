-- The current tags of every stored run (retracted ones included), by run then key.
SELECT run_id, key, value
FROM run_tags
ORDER BY run_id, key;
