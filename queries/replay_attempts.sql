-- The attempts of one run (:run_id) with what the routing replay judges a measured kernel win by
-- (docs/rescore.md): kernel, round, e2e delta (percent), output parity and reject reason.
SELECT a.run_id, a.short_name, a.round, a.e2e_delta_pct, a.output_parity, a.reject_reason
FROM attempts a
WHERE a.run_id = :run_id
ORDER BY a.attempt_id;
