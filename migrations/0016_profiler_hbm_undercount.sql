-- rfdb schema, version 16: profiler-aware measured verdicts (issue 30).
--
-- verdicts.profiler_version: a measured (roofline-v1) verdict's profiler
-- version as its document states it (`tool_version`, else
-- `tool.version.text`: "rocprofiler-compute version: 3.1.1"); NULL on
-- analytic verdicts and when the document states none.
-- verdicts.profiler_hbm_undercount: 1 when that profiler under-counts HBM
-- bytes on the run's gfx (domain::profiler_undercounts_hbm: rocprof-compute
-- before 3.5 on gfx950, GEAK PR #468), so the verdict's roofline_pct reads
-- low and its headroom high; 0 otherwise, and when the version is unknown.
-- attempts.profiler_hbm_undercount and observations.profiler_hbm_undercount:
-- 1 when the attempt's achieved efficiency rests on such a verdict (its
-- predicting verdict or the post roofline that measured it); `rfdb priors`
-- leaves those observations out unless --include-biased-profiler
-- (docs/estimator.md). 0 on rows an older rfdb wrote: the derivation
-- version moved, so the next `rfdb ingest` of a run re-derives them.
ALTER TABLE verdicts ADD COLUMN profiler_version TEXT;
ALTER TABLE verdicts ADD COLUMN profiler_hbm_undercount INTEGER NOT NULL DEFAULT 0 CHECK (profiler_hbm_undercount IN (0, 1));
ALTER TABLE attempts ADD COLUMN profiler_hbm_undercount INTEGER NOT NULL DEFAULT 0 CHECK (profiler_hbm_undercount IN (0, 1));
ALTER TABLE observations ADD COLUMN profiler_hbm_undercount INTEGER NOT NULL DEFAULT 0 CHECK (profiler_hbm_undercount IN (0, 1));
