-- The stack rows of every stored run (migration 0014), by run and package.
SELECT s.run_id, s.package, s.raw, s.release, s.source, s.via
FROM run_stack s
ORDER BY s.run_id, s.package;
