-- One package of a run's stack (migration 0014).
INSERT INTO run_stack (run_id, package, raw, release, source, via)
VALUES (:run_id, :package, :raw, :release, :source, :via);
