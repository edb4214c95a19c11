-- Every file an attempt cites, with the attempt's measured numbers, grouped
-- by file so each is parsed once (rfdb check's evidence check).
SELECT a.run_id, a.attempt_key, a.isolated_speedup, a.e2e_delta_pct,
       s.source_id, s.rel_path, s.kind, s.bytes, s.raw_zst, src.json_pointer
FROM attempt_sources AS src
JOIN attempts AS a ON a.attempt_id = src.attempt_id
JOIN sources AS s ON s.source_id = src.source_id
WHERE s.kind IN ('integrate_result', 'opbench_result', 'sweep_results', 'workflow_return')
ORDER BY s.source_id, a.run_id, a.attempt_key;
