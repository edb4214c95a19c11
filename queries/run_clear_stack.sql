-- Drop a run's derived stack rows (sources stay).
DELETE FROM run_stack WHERE run_id = :run_id;
