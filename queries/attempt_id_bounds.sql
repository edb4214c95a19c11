-- The lowest and highest attempt_id stored (NULL, NULL when there is none):
-- the report splits its read of the attempts into ranges of them.
SELECT min(attempt_id) AS first_attempt, max(attempt_id) AS last_attempt
FROM attempts;
