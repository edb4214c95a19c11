-- Every attempt of a non-retracted run as the playbook reads it: the attempt
-- model's outcome facts (gate, parity, reason, the run's Director
-- validation) and the prediction snapshot (only the columns the playbook
-- reads: no candidate, parity_kind, pred_source_kind, pred_confidence or
-- pred_expected_e2e_gain_pct). No run columns: the reader joins
-- each row to the run rows of report_runs, which the optional filters :since
-- (run_date on or after) and :gfx also narrow here (a set of run ids built
-- once, no join per row). Only attempt_id in [:first_attempt, :last_attempt]
-- (a rowid range: the read may be split between threads). In table order,
-- no sort: the analysis does not depend on the order.
SELECT a.run_id, a.attempt_key, a.kind, a.short_name, a.op_class, a.regime,
       a.lever, a.lever_kind, a.backend, a.isolated_speedup, a.e2e_delta_pct,
       a.gate, a.verdict, a.measured, a.deployed, a.output_parity,
       a.reason, a.reject_reason, a.validation_class, a.validation_speedup,
       a.pred_roofline_pct, a.pred_target_eff, a.pred_attainable_speedup,
       a.pred_headroom_class, a.pred_suspect, a.pred_pct_gpu_time,
       a.pred_case_mix
FROM attempts a
WHERE a.attempt_id BETWEEN :first_attempt AND :last_attempt
  AND a.run_id NOT IN (SELECT run_id FROM retractions)
  AND (:since IS NULL AND :gfx IS NULL
       OR a.run_id IN (SELECT run_id FROM runs
                       WHERE (:since IS NULL OR run_date >= :since) AND (:gfx IS NULL OR gfx = :gfx)));
