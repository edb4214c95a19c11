-- PostgreSQL text of queries/run_verdicts.sql: NULLs ordered as in SQLite (first ascending, last descending). Ties in SQLite's rowid order.
-- Current (not superseded) roofline verdicts of a run: analytic ones in
-- round order, then measured ones.
SELECT v.round, v.short_name, v.op_class, v.stage, v.source_kind, v.roofline_pct,
       v.target_eff, v.attainable_speedup, v.expected_e2e_gain_pct, v.headroom_class,
       v.bound_type, v.confidence, v.suspect, v.phase, v.pct_gpu_time, v.dispatch_bound,
       v.headroom_ratio, v.guidance, v.observed_limit, v.disputed, v.profiler_version,
       v.profiler_hbm_undercount
FROM verdicts v
WHERE v.run_id = :run_id AND v.superseded = 0
ORDER BY v.source_kind, v.round_order NULLS FIRST, v.pct_gpu_time DESC NULLS LAST, v.short_name,
         v.phase NULLS FIRST, v.verdict_id;
