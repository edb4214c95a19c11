-- One run's identity row (see runs_list.sql for the summary form).
SELECT r.run_id, r.run_date, r.model, r.model_arch_class, r.model_dtype, r.gfx, r.device_name,
       r.backend, r.backend_version, r.tp, r.isl, r.osl, r.conc,
       r.baseline_throughput_tok_s, r.final_throughput_tok_s, r.throughput_speedup,
       r.validation_status, r.validation_class, r.output_parity,
       x.reason AS retracted_reason, x.retracted_at
FROM runs r
LEFT JOIN retractions x ON x.run_id = r.run_id
WHERE r.run_id = :run_id;
