-- The bench summaries of a run with their per-repetition throughputs
-- (migration 0015), for `rfdb show`: one row per sample (a summary with no
-- stored sample: one row with sample_index NULL), summaries in role, label
-- and file order.
SELECT b.role, b.label, b.throughput_tok_s_median, b.throughput_spread_pct, b.runs_count, b.source_id,
       s.sample_index, s.throughput_tok_s
FROM bench_summaries b
LEFT JOIN bench_samples s ON s.run_id = b.run_id AND s.source_id = b.source_id
WHERE b.run_id = :run_id
ORDER BY b.role, b.label, b.source_id, s.sample_index;
