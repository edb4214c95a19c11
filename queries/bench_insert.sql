-- One bench summary of a run.
INSERT INTO bench_summaries (run_id, source_id, role, label, throughput_tok_s_median,
                             throughput_spread_pct, ttft_ms_median, tpot_ms_median, runs_count,
                             metric_basis, measurement_mode)
VALUES (:run_id, :source_id, :role, :label, :throughput_tok_s_median, :throughput_spread_pct,
        :ttft_ms_median, :tpot_ms_median, :runs_count, :metric_basis, :measurement_mode);
