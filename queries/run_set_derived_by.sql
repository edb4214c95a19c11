-- Record the derivation version that wrote a run's rows.
UPDATE runs SET derived_by = :derived_by WHERE run_id = :run_id;
