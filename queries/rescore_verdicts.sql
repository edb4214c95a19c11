-- The current profile-round roofline verdicts (profile_roofline.json entries, the ones a run
-- routes on) with their run's date and GPU, for rfdb rescore: of every non-retracted run, or of
-- the one run :run_id (retracted or not). Rounds in workflow order, heads first.
SELECT v.run_id, r.run_date, r.gfx, v.round, v.round_order, v.short_name, v.op_class, v.regime,
       v.source_kind, v.confidence, v.pct_gpu_time, v.roofline_pct, v.target_eff,
       v.attainable_speedup, v.expected_e2e_gain_pct, v.headroom_class, v.suspect, v.dispatch_bound
FROM verdicts v
JOIN runs r ON r.run_id = v.run_id
WHERE v.superseded = 0 AND v.round IS NOT NULL
  AND ((:run_id IS NULL AND v.run_id NOT IN (SELECT run_id FROM retractions)) OR v.run_id = :run_id)
ORDER BY r.run_date, v.run_id, v.round_order, v.pct_gpu_time DESC, v.short_name, v.verdict_id;
