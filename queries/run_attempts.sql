-- Attempts of a run with their prediction snapshot and the files citing them.
-- json: sources
SELECT a.attempt_id, /*@attempt_select:S*/,
       (SELECT json_group_array(rel_path) FROM (
          SELECT DISTINCT s.rel_path FROM attempt_sources x
          JOIN sources s ON s.source_id = x.source_id
          WHERE x.attempt_id = a.attempt_id ORDER BY s.rel_path)) AS sources
FROM attempts a
WHERE a.run_id = :run_id
ORDER BY a.short_name, a.attempt_key;
