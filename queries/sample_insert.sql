-- One Top-N row of a profile round.
INSERT INTO kernel_samples (round_id, rank, name, short_name, pct_gpu_time, raw_pct_gpu_time,
                            total_ms, calls, avg_us, classification, backend_guess, editable,
                            phase, base_latency_ms, shapes, dtypes, json_pointer)
VALUES (:round_id, :rank, :name, :short_name, :pct_gpu_time, :raw_pct_gpu_time, :total_ms,
        :calls, :avg_us, :classification, :backend_guess, :editable, :phase, :base_latency_ms,
        :shapes, :dtypes, :json_pointer);
