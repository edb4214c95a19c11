-- PostgreSQL text of queries/run_attempts.sql: the sources JSON array built with string_agg (json_group_array).
-- Attempts of a run with their prediction snapshot and the files citing them.
-- json: sources
SELECT a.attempt_id, a.short_name, a.lever, a.backend, a.isolated_speedup, a.e2e_delta_pct,
       a.verdict, a.pred_roofline_pct, a.pred_target_eff, a.pred_attainable_speedup,
       a.pred_expected_e2e_gain_pct, a.pred_headroom_class, a.pred_confidence,
       a.pred_pct_gpu_time, a.lever_kind, a.gate,
       a.attempt_key, a.kind, a.candidate, a.candidate_short_name, a.task, a.winner_kind,
       a.verdict_raw, a.output_parity, a.parity_kind, a.reason, a.reject_reason, a.round,
       a.measured, a.deployed, a.post_measured, a.post_efficiency, a.pred_source_kind,
       a.pred_stage, a.pred_bound_type, a.validation_class, a.validation_speedup,
       (SELECT '[' || coalesce(string_agg(to_json(d.rel_path)::text, ',' ORDER BY d.rel_path), '') || ']'
        FROM (SELECT DISTINCT s.rel_path FROM attempt_sources x
              JOIN sources s ON s.source_id = x.source_id
              WHERE x.attempt_id = a.attempt_id) AS d) AS sources
FROM attempts a
WHERE a.run_id = :run_id
ORDER BY a.short_name, a.attempt_key;
