-- Create or refresh a run's identity from its current artifacts.
INSERT INTO runs (run_id, run_date, model, model_arch_class, model_dtype, gfx, device_name,
                  backend, backend_version, tp, isl, osl, conc, available_backends,
                  baseline_throughput_tok_s, final_throughput_tok_s, throughput_speedup,
                  validation_status, validation_class, output_parity, eval_dir,
                  first_ingested_at, last_ingested_at)
VALUES (:run_id, :run_date, :model, :model_arch_class, :model_dtype, :gfx, :device_name,
        :backend, :backend_version, :tp, :isl, :osl, :conc, :available_backends,
        :baseline_throughput_tok_s, :final_throughput_tok_s, :throughput_speedup,
        :validation_status, :validation_class, :output_parity, :eval_dir,
        :now, :now)
ON CONFLICT (run_id) DO UPDATE SET
  run_date = excluded.run_date, model = excluded.model,
  model_arch_class = excluded.model_arch_class, model_dtype = excluded.model_dtype,
  gfx = excluded.gfx, device_name = excluded.device_name, backend = excluded.backend,
  backend_version = excluded.backend_version, tp = excluded.tp, isl = excluded.isl,
  osl = excluded.osl, conc = excluded.conc, available_backends = excluded.available_backends,
  baseline_throughput_tok_s = excluded.baseline_throughput_tok_s,
  final_throughput_tok_s = excluded.final_throughput_tok_s,
  throughput_speedup = excluded.throughput_speedup,
  validation_status = excluded.validation_status,
  validation_class = excluded.validation_class, output_parity = excluded.output_parity,
  eval_dir = excluded.eval_dir, last_ingested_at = excluded.last_ingested_at;
