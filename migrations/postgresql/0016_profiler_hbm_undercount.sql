-- PostgreSQL dialect of migrations/0016_profiler_hbm_undercount.sql (see there).
ALTER TABLE verdicts ADD COLUMN profiler_version TEXT COLLATE "C";
ALTER TABLE verdicts ADD COLUMN profiler_hbm_undercount BIGINT NOT NULL DEFAULT 0 CHECK (profiler_hbm_undercount IN (0, 1));
ALTER TABLE attempts ADD COLUMN profiler_hbm_undercount BIGINT NOT NULL DEFAULT 0 CHECK (profiler_hbm_undercount IN (0, 1));
ALTER TABLE observations ADD COLUMN profiler_hbm_undercount BIGINT NOT NULL DEFAULT 0 CHECK (profiler_hbm_undercount IN (0, 1));

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
