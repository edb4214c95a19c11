-- The columns of a kb_records row as src/store/kb_records.cpp reads them (column order matters),
-- expanded where a query says /*@kb_record_columns*/ (tools/embed_sql.cmake; comment lines dropped).
record_id, source_id, lane, record_key, store_path, files_sha256, canonical_id, rung, rungs, id_order,
       gfx, kernel_name, kernel_class, backend, framework, framework_version, model, precision, tp,
       ep, isl, osl, conc, workload_kind, metric_name, metric_value, speedup, throughput_tok_s,
       baseline_tok_s, metric_kind, bench_key, case_names, direction, techniques, strategy,
       verified_on, verified_stack, reproductions, lifecycle, validated, retained, retired_reason,
       retracted_at, withdrawn_scores, content_signature, signature_origin, carrier, apply_env,
       apply_route, recalls, validations, failures, not_reproduced, inapplicable, last_outcome,
       last_at, last_by, retired, retired_why, extra, ingested_at, superseded
