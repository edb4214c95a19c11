-- Every attempt of a non-retracted run as the playbook reads it: the attempt
-- model's outcome facts (gate, parity, reason, the run's Director
-- validation) and the prediction snapshot: the members of
-- src/store/attempt_fields.def the report reads (R). No run columns: the reader joins
-- each row to the run rows of report_runs, which the optional filters :since
-- (run_date on or after) and :gfx also narrow here (a set of run ids built
-- once, no join per row). Only attempt_id in [:first_attempt, :last_attempt]
-- (a rowid range: the read may be split between threads). In table order,
-- no sort: the analysis does not depend on the order.
SELECT /*@attempt_select:R*/
FROM attempts a
WHERE a.attempt_id BETWEEN :first_attempt AND :last_attempt
  AND a.run_id NOT IN (SELECT run_id FROM retractions)
  AND (:since IS NULL AND :gfx IS NULL
       OR a.run_id IN (SELECT run_id FROM runs
                       WHERE (:since IS NULL OR run_date >= :since) AND (:gfx IS NULL OR gfx = :gfx)));
