-- Drop a run's derived attempts before re-deriving them (sources stay).
DELETE FROM attempts WHERE run_id = :run_id;
