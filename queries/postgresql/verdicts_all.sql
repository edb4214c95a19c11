-- PostgreSQL text of queries/verdicts_all.sql: NULLs ordered as in SQLite (first ascending, last descending). Ties in SQLite's rowid order.
-- Every current roofline verdict across runs (rfdb query verdicts_all).
SELECT v.run_id, r.gfx, v.round, v.short_name, v.op_class, v.regime, v.stage, v.source_kind,
       v.confidence, v.pct_gpu_time, v.roofline_pct, v.target_eff, v.attainable_speedup,
       v.expected_e2e_gain_pct, v.headroom_class, v.bound_type, v.suspect,
       v.headroom_ratio, v.guidance, v.disputed, v.profiler_version, v.profiler_hbm_undercount
FROM verdicts v
JOIN runs r ON r.run_id = v.run_id
WHERE v.superseded = 0
ORDER BY r.run_date NULLS FIRST, v.run_id, v.round_order NULLS FIRST, v.pct_gpu_time DESC NULLS LAST,
         v.verdict_id;
