-- Derived rows whose source file row is missing (should never happen).
SELECT 'verdicts' AS tbl, count(*) AS n FROM roofline_docs d
  WHERE NOT EXISTS (SELECT 1 FROM sources s WHERE s.source_id = d.source_id)
UNION ALL
SELECT 'attempts', count(*) FROM attempts a
  WHERE NOT EXISTS (SELECT 1 FROM attempt_sources x WHERE x.attempt_id = a.attempt_id);
