-- Drop a run's derived roofline documents and verdicts (sources stay).
DELETE FROM roofline_docs WHERE run_id = :run_id;
