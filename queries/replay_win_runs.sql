-- The non-retracted runs dated on or before :as_of (and on or after :since when given) with at
-- least one attempt whose e2e delta is positive, newest first: the candidates of the playbook's
-- routing replay ("Would calibration have changed routing?", docs/playbook.md), which then keeps
-- the attempts beyond the noise band whose parity held and that engaged (docs/rescore.md).
SELECT r.run_id, r.run_date, r.gfx
FROM runs r
WHERE r.run_id NOT IN (SELECT run_id FROM retractions)
  AND r.run_date IS NOT NULL AND r.run_date <= :as_of
  AND (:since IS NULL OR r.run_date >= :since)
  AND EXISTS (SELECT 1 FROM attempts a WHERE a.run_id = r.run_id AND a.e2e_delta_pct > 0)
ORDER BY r.run_date DESC, r.run_id;
