-- The current GEAK kb records whose record_id is CAST(:id AS TEXT), or whose record_key is CAST(:id AS TEXT) or starts with it
-- (rfdb show --finding).
SELECT record_id,
       source_id, lane, record_key, store_path, files_sha256, canonical_id, rung, rungs, id_order,
       gfx, kernel_name, kernel_class, backend, framework, framework_version, model, precision, tp,
       ep, isl, osl, conc, workload_kind, metric_name, metric_value, speedup, throughput_tok_s,
       baseline_tok_s, metric_kind, bench_key, case_names, direction, techniques, strategy,
       verified_on, verified_stack, reproductions, lifecycle, validated, retained, retired_reason,
       retracted_at, withdrawn_scores, content_signature, signature_origin, carrier, apply_env,
       apply_route, recalls, validations, failures, not_reproduced, inapplicable, last_outcome,
       last_at, last_by, retired, retired_why, extra, ingested_at, superseded
FROM kb_records
WHERE superseded = 0
  AND (CAST(record_id AS TEXT) = CAST(:id AS TEXT) OR record_key = CAST(:id AS TEXT) OR substr(record_key, 1, length(CAST(:id AS TEXT))) = CAST(:id AS TEXT))
ORDER BY record_key = CAST(:id AS TEXT) DESC, CAST(record_id AS TEXT) = CAST(:id AS TEXT) DESC, record_key
LIMIT 6;
