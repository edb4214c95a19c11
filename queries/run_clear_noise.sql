-- Drop a run's derived bench samples (sources stay); its limitations go with run_clear_limitations.
DELETE FROM bench_samples WHERE run_id = :run_id;
