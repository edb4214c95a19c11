-- Drop a run's derived bench summaries (sources stay).
DELETE FROM bench_summaries WHERE run_id = :run_id;
