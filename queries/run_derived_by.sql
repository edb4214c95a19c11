-- The derivation version that wrote a run's rows (no row: the run is new).
SELECT derived_by FROM runs WHERE run_id = :run_id;
