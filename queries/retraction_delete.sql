-- Restore a retracted run.
DELETE FROM retractions WHERE run_id = :run_id;
