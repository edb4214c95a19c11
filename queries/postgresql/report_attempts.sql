-- PostgreSQL text of queries/report_attempts.sql. Optional text parameters are CAST so PostgreSQL can type them.
-- Every attempt of a non-retracted run as the playbook reads it: the attempt
-- model's outcome facts (gate, parity, reason, the run's Director
-- validation) and the prediction snapshot: the members of
-- src/store/attempt_fields.def the report reads (R). No run columns: the reader joins
-- each row to the run rows of report_runs, which the optional filters :since
-- (run_date on or after) and :gfx also narrow here (a set of run ids built
-- once, no join per row). In table order, no sort: the analysis does not
-- depend on the order.
SELECT /*@attempt_select:R*/
FROM attempts a
WHERE a.attempt_id BETWEEN :first_attempt AND :last_attempt
  AND a.run_id NOT IN (SELECT run_id FROM retractions)
  AND (CAST(:since AS text) IS NULL AND CAST(:gfx AS text) IS NULL
       OR a.run_id IN (SELECT run_id FROM runs
                       WHERE (CAST(:since AS text) IS NULL OR run_date >= :since) AND (CAST(:gfx AS text) IS NULL OR gfx = :gfx)));
