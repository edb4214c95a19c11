-- PostgreSQL text of queries/run_kernels.sql: NULL rank first, as in SQLite.
-- Top-N rows of every profile round of a run, rounds in workflow order.
SELECT p.round, k.rank, k.short_name, k.name, k.pct_gpu_time, k.classification, k.editable,
       k.total_ms, k.calls
FROM kernel_samples k
JOIN profile_rounds p ON p.round_id = k.round_id
WHERE p.run_id = :run_id
ORDER BY p.round_order, k.rank NULLS FIRST, k.sample_id;
