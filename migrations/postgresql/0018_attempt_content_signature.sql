-- rfdb schema, version 18 (PostgreSQL twin of migrations/0018_attempt_content_signature.sql):
-- attempts.content_signature, GEAK's csha:/asha: implementation signature of the candidate
-- (NULL when the run stores neither its diff nor its tuning table).
ALTER TABLE attempts ADD COLUMN content_signature TEXT COLLATE "C";
