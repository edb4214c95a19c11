-- Indexes on the foreign keys ingest and the readers filter by. Without
-- them re-deriving a run scans bench_summaries and roofline_docs in full, so
-- ingest slowed as the history grew (tools/bench: 119 → 57 runs/s over
-- 10 000 runs).
CREATE INDEX bench_summaries_run ON bench_summaries (run_id);
CREATE INDEX roofline_docs_run ON roofline_docs (run_id);
CREATE INDEX verdicts_doc ON verdicts (doc_id);
CREATE INDEX verdicts_run_current ON verdicts (run_id, superseded);
CREATE INDEX attempts_pred_verdict ON attempts (pred_verdict_id);
CREATE INDEX attempt_sources_source ON attempt_sources (source_id);
CREATE INDEX sources_superseded_by ON sources (superseded_by);
CREATE INDEX learned_findings_source ON learned_findings (source_id);
-- The copy check looks files up by content across runs.
CREATE INDEX sources_sha256 ON sources (sha256);
