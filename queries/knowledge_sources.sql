-- Stored knowledge files (cards, playbooks, proposals), current versions only.
SELECT source_id, rel_path, kind FROM sources
WHERE run_id IS NULL AND superseded_by IS NULL
ORDER BY rel_path;
