-- Drop a run's derived profile rounds and Top-N rows (sources stay).
DELETE FROM profile_rounds WHERE run_id = :run_id;
