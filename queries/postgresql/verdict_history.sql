-- PostgreSQL text of queries/verdict_history.sql: NULL round_order first, as in SQLite. Ties in SQLite's rowid order.
-- Every roofline verdict of a run, superseded ones included (a
-- profile_roofline.json rewritten at stage B/C keeps its earlier stage here).
-- rfdb query verdict_history -p run_id=RUN
SELECT v.round, v.short_name, v.stage, v.source_kind, v.confidence, v.roofline_pct,
       v.target_eff, v.attainable_speedup, v.headroom_class, v.superseded, s.rel_path, s.ingested_at
FROM verdicts v
JOIN roofline_docs d ON d.doc_id = v.doc_id
JOIN sources s ON s.source_id = d.source_id
WHERE v.run_id = :run_id
ORDER BY v.round_order NULLS FIRST, v.short_name, s.source_id, v.verdict_id;
