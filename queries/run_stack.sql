-- The stack rows of one run (migration 0014), by package.
SELECT s.run_id, s.package, s.raw, s.release, s.source, s.via
FROM run_stack s
WHERE s.run_id = :run_id
ORDER BY s.package;
