-- Every stored file version of a run, oldest first, for re-derivation.
SELECT source_id, rel_path, kind, raw, superseded_by IS NOT NULL AS superseded
FROM sources
WHERE run_id = :run_id
ORDER BY rel_path, source_id;
