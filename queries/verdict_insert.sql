-- One roofline verdict.
INSERT INTO verdicts (doc_id, run_id, round, round_order, short_name, name, op_class,
                      op_class_raw, regime, pct_gpu_time, t_ms, launches_per_step, bytes_est,
                      flops_est, hbm_util, compute_util, arithmetic_intensity, ridge_point,
                      bound_type, bound_type_raw, roofline_pct, roofline_pct_raw, target_eff,
                      attainable_speedup, expected_e2e_gain_pct, headroom_class,
                      headroom_class_raw, stage, source_kind, confidence, suspect, dispatch_bound,
                      modeled, phase, case_id, observed_limit, headroom_ratio,
                      roofline_efficiency_pct, byte_reduction_levers, superseded, json_pointer,
                      guidance, disputed, case_mix, profiler_version, profiler_hbm_undercount)
VALUES (:doc_id, :run_id, :round, :round_order, :short_name, :name, :op_class, :op_class_raw,
        :regime, :pct_gpu_time, :t_ms, :launches_per_step, :bytes_est, :flops_est, :hbm_util,
        :compute_util, :arithmetic_intensity, :ridge_point, :bound_type, :bound_type_raw,
        :roofline_pct, :roofline_pct_raw, :target_eff, :attainable_speedup,
        :expected_e2e_gain_pct, :headroom_class, :headroom_class_raw, :stage, :source_kind,
        :confidence, :suspect, :dispatch_bound, :modeled, :phase, :case_id, :observed_limit,
        :headroom_ratio, :roofline_efficiency_pct, :byte_reduction_levers, :superseded,
        :json_pointer, :guidance, :disputed, :case_mix, :profiler_version,
        :profiler_hbm_undercount);
