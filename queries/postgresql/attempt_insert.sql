-- PostgreSQL text of queries/attempt_insert.sql: RETURNING the new key (Database::last_insert_rowid).
-- One attempt with its prediction snapshot and outcome.
INSERT INTO attempts (run_id, attempt_key, short_name, candidate, lever, lever_kind, backend,
                      winner_kind, op_class, regime, isolated_speedup, e2e_delta_pct, gate,
                      verdict, verdict_raw, output_parity, parity_kind, reason, round,
                      pred_verdict_id, pred_source_kind, pred_stage, pred_roofline_pct,
                      pred_target_eff, pred_attainable_speedup, pred_expected_e2e_gain_pct,
                      pred_headroom_class, pred_bound_type, pred_confidence, pred_suspect,
                      pred_pct_gpu_time, post_efficiency, kind, candidate_short_name, task,
                      measured, deployed, post_measured, reject_reason, validation_class,
                      validation_speedup, pred_case_mix)
VALUES (:run_id, :attempt_key, :short_name, :candidate, :lever, :lever_kind, :backend,
        :winner_kind, :op_class, :regime, :isolated_speedup, :e2e_delta_pct, :gate, :verdict,
        :verdict_raw, :output_parity, :parity_kind, :reason, :round, :pred_verdict_id,
        :pred_source_kind, :pred_stage, :pred_roofline_pct, :pred_target_eff,
        :pred_attainable_speedup, :pred_expected_e2e_gain_pct, :pred_headroom_class,
        :pred_bound_type, :pred_confidence, :pred_suspect, :pred_pct_gpu_time, :post_efficiency,
        :kind, :candidate_short_name, :task, :measured, :deployed, :post_measured,
        :reject_reason, :validation_class, :validation_speedup, :pred_case_mix)
RETURNING attempt_id;
