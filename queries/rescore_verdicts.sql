-- The roofline verdicts a run routes on, with their run's date and GPU, for rfdb rescore: of
-- every non-retracted run, or of the one run :run_id (retracted or not).
--   * the current profile-round verdicts (profile_roofline.json entries), rounds in workflow
--     order, heads first;
--   * then the current measured baseline verdicts (roofline-v1, phase 'baseline': the kernel's
--     own measurement before any lever), as the round 'measured', ordered after every profile
--     round. A measured verdict states no share of GPU time: it takes the pct_gpu_time of its
--     kernel's first profile-round verdict in the run (NULL when the profile has none).
SELECT * FROM (
  SELECT v.verdict_id, v.run_id, r.run_date, r.gfx, v.round, v.round_order, v.short_name,
         v.op_class, v.regime, v.source_kind, v.confidence, v.pct_gpu_time, v.roofline_pct,
         v.target_eff, v.attainable_speedup, v.expected_e2e_gain_pct, v.headroom_class, v.suspect,
         v.dispatch_bound
  FROM verdicts v
  JOIN runs r ON r.run_id = v.run_id
  WHERE v.superseded = 0 AND v.round IS NOT NULL
    AND ((:run_id IS NULL AND v.run_id NOT IN (SELECT run_id FROM retractions)) OR v.run_id = :run_id)
  UNION ALL
  SELECT m.verdict_id, m.run_id, r.run_date, r.gfx, 'measured' AS round, 1000000000 AS round_order,
         m.short_name, m.op_class, m.regime, m.source_kind, m.confidence,
         (SELECT p.pct_gpu_time FROM verdicts p
          WHERE p.run_id = m.run_id AND p.short_name = m.short_name AND p.round IS NOT NULL
            AND p.superseded = 0
          ORDER BY p.round_order, p.verdict_id LIMIT 1) AS pct_gpu_time,
         m.roofline_pct, m.target_eff, m.attainable_speedup, m.expected_e2e_gain_pct,
         m.headroom_class, m.suspect, m.dispatch_bound
  FROM verdicts m
  JOIN runs r ON r.run_id = m.run_id
  WHERE m.superseded = 0 AND m.round IS NULL AND m.source_kind = 'measured' AND m.phase = 'baseline'
    AND ((:run_id IS NULL AND m.run_id NOT IN (SELECT run_id FROM retractions)) OR m.run_id = :run_id)
) u
ORDER BY run_date, run_id, round_order, pct_gpu_time DESC, short_name, verdict_id;
