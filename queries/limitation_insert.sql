-- One stated limitation of a run (env_report.json `limitations`, migration 0015).
INSERT INTO run_limitations (run_id, limitation_index, limitation)
VALUES (:run_id, :limitation_index, :limitation);
