-- PostgreSQL text of queries/evidence_verdicts.sql: NULLs ordered as in SQLite (first ascending, last descending). Optional text parameters are CAST so PostgreSQL can type them. Ties in SQLite's rowid order.
-- Current profile-round roofline verdicts of non-retracted runs (for routing
-- quality and saturated heads in the playbook), rounds in workflow order.
-- json: byte_reduction_levers
SELECT v.run_id, r.run_date, r.gfx, v.round, v.round_order, v.short_name, v.op_class,
       v.pct_gpu_time, v.roofline_pct, v.target_eff, v.attainable_speedup,
       v.expected_e2e_gain_pct, v.headroom_class, v.byte_reduction_levers
FROM verdicts v
JOIN runs r ON r.run_id = v.run_id
WHERE v.superseded = 0 AND v.round IS NOT NULL -- profile_roofline.json entries, not roofline-v1 files
  AND v.run_id NOT IN (SELECT run_id FROM retractions)
  AND (CAST(:since AS text) IS NULL OR r.run_date >= :since)
  AND (CAST(:gfx AS text) IS NULL OR r.gfx = :gfx)
ORDER BY r.run_date NULLS FIRST, v.run_id, v.round_order NULLS FIRST, v.pct_gpu_time DESC NULLS LAST,
         v.short_name, v.verdict_id;
