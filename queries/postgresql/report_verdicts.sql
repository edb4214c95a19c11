-- PostgreSQL text of queries/report_verdicts.sql. Optional text parameters are CAST so PostgreSQL can type them.
-- The playbook's head verdicts: current profile-round (analytic) verdicts,
-- and each kernel's measured baseline roofline (roofline-v1), which outranks
-- the analytic verdict as the attempt's prediction does. A post roofline is
-- never a prediction and is left out. Non-retracted runs, narrowed by the
-- optional filters :since and :gfx as report_runs (a set of run ids built
-- once, no join per row). In table order, no sort and no index seek per row:
-- a run's rows are written together in its ingest transaction, so they come
-- contiguous unless they were written apart (copied from a PostgreSQL store
-- that took two ingests at once); the reader checks, and reads them again in
-- run_id order when they were not (read_report_evidence, verdicts_by_run).
-- No run columns: the reader joins each run to the run rows of report_runs
-- and orders a run's rows itself (verdict_id breaks the last ties).
SELECT v.run_id, v.verdict_id, v.round, v.round_order, v.short_name, v.name, v.op_class,
       v.source_kind, v.pct_gpu_time, v.roofline_pct, v.target_eff, v.attainable_speedup,
       v.expected_e2e_gain_pct, v.headroom_class, v.suspect, v.dispatch_bound,
       v.byte_reduction_levers, v.headroom_ratio, v.guidance, v.observed_limit, v.disputed
FROM verdicts v
WHERE v.superseded = 0
  AND (v.round IS NOT NULL OR (v.source_kind = 'measured' AND v.phase = 'baseline'))
  AND v.run_id NOT IN (SELECT run_id FROM retractions)
  AND (CAST(:since AS text) IS NULL AND CAST(:gfx AS text) IS NULL
       OR v.run_id IN (SELECT run_id FROM runs
                       WHERE (CAST(:since AS text) IS NULL OR run_date >= :since) AND (CAST(:gfx AS text) IS NULL OR gfx = :gfx)));
