-- PostgreSQL text of queries/roofline_doc_insert.sql: RETURNING the new key (Database::last_insert_rowid).
-- One roofline document (analytic profile_roofline.json or measured roofline-v1).
INSERT INTO roofline_docs (run_id, source_id, source_kind, round, stage, phase, task, gfx, peaks,
                           ranking_by_pct, ranking_by_expected_gain, degraded, skill_errors,
                           superseded)
VALUES (:run_id, :source_id, :source_kind, :round, :stage, :phase, :task, :gfx, :peaks,
        :ranking_by_pct, :ranking_by_expected_gain, :degraded, :skill_errors, :superseded)
RETURNING doc_id;
