-- PostgreSQL text of queries/run_attempts.sql: the sources JSON array built with string_agg (json_group_array).
-- Attempts of a run with their prediction snapshot and the files citing them.
-- json: sources
SELECT a.attempt_id, /*@attempt_select:S*/,
       (SELECT '[' || coalesce(string_agg(to_json(d.rel_path)::text, ',' ORDER BY d.rel_path), '') || ']'
        FROM (SELECT DISTINCT s.rel_path FROM attempt_sources x
              JOIN sources s ON s.source_id = x.source_id
              WHERE x.attempt_id = a.attempt_id) AS d) AS sources
FROM attempts a
WHERE a.run_id = :run_id
ORDER BY a.short_name, a.attempt_key;
