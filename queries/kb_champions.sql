-- Every current GEAK champion pointer (champion.json per identity dir), by canonical id;
-- with :session_id, only the pointers naming that session.
SELECT champion_id, source_id, canonical_id, metric, session_id, value FROM kb_champions
WHERE superseded = 0 AND (CAST(:session_id AS TEXT) IS NULL OR session_id = CAST(:session_id AS TEXT))
ORDER BY canonical_id;
