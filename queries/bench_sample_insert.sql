-- One per-repetition throughput of a bench summary (migration 0015).
INSERT INTO bench_samples (run_id, source_id, sample_index, throughput_tok_s)
VALUES (:run_id, :source_id, :sample_index, :throughput_tok_s);
