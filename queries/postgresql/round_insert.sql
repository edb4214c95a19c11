-- PostgreSQL text of queries/round_insert.sql: RETURNING the new key (Database::last_insert_rowid).
-- One profile round (its Top-N file).
INSERT INTO profile_rounds (run_id, round, round_order, source_id, parser_source,
                            total_gpu_time_ms, num_kernel_launches, num_distinct_kernels)
VALUES (:run_id, :round, :round_order, :source_id, :parser_source, :total_gpu_time_ms,
        :num_kernel_launches, :num_distinct_kernels)
RETURNING round_id;
