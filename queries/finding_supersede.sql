-- Mark the findings read from an older version of a knowledge file as superseded.
UPDATE learned_findings SET superseded = 1 WHERE source_id = :source_id;
