-- rfdb schema, version 13 (PostgreSQL twin of migrations/0013_measured_verdicts.sql): measured verdicts on their own evidence.
--
-- verdicts.guidance: a measured (roofline-v1) verdict's engine guidance for
-- its dominant case (guidance.cases[].reason: actionable, low_headroom, …).
-- verdicts.disputed: 1 when rfdb's band says saturated but the engine
-- reports headroom_ratio >= 1.25 or guidance actionable (domain::is_disputed;
-- docs/playbook.md, "Saturated heads"): the playbook lists it as disputed
-- and does not reroute it. verdicts.case_mix: a roofline-v1 file with two or
-- more matched cases keeps each case as a JSON array of {case_id, regime,
-- time_share, roofline_pct, attainable_speedup, dominant}; its
-- attainable_speedup is then the Amdahl mix of the cases and its regime the
-- mix's (docs/artifacts.md). attempts.pred_case_mix copies the predicting
-- verdict's case_mix (the Calibration and Cautions miss diagnosis reads it).
-- NULL / 0 on rows an older rfdb wrote: the derivation version moved, so the
-- next `rfdb ingest` of a run re-derives them.
ALTER TABLE verdicts ADD COLUMN guidance TEXT COLLATE "C";
ALTER TABLE verdicts ADD COLUMN disputed BIGINT NOT NULL DEFAULT 0 CHECK (disputed IN (0, 1));
ALTER TABLE verdicts ADD COLUMN case_mix TEXT COLLATE "C";
ALTER TABLE attempts ADD COLUMN pred_case_mix TEXT COLLATE "C";

-- current_verdicts and attempt_outcomes select v.* and a.* (expanded when
-- each view was created), so they are re-created to show the new columns.
DROP VIEW current_verdicts;
CREATE VIEW current_verdicts AS
SELECT r.run_date, r.gfx, r.model, r.backend AS serving_backend, v.*
FROM verdicts v
JOIN active_runs r ON r.run_id = v.run_id
WHERE v.superseded = 0;
DROP VIEW attempt_outcomes;
CREATE VIEW attempt_outcomes AS
SELECT r.run_date, r.gfx, r.model, r.backend AS serving_backend, a.*
FROM attempts a
JOIN active_runs r ON r.run_id = a.run_id;
