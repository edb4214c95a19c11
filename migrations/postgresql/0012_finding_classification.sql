-- rfdb schema, version 12 (PostgreSQL twin of migrations/0012_finding_classification.sql): what an imported finding says.
--
-- classification: positive_measured | in_noise | negative | method |
-- seam_fact | routing_note | archived, read from the finding's own text by
-- domain::classify_knowledge (docs/playbook.md, "Imported knowledge"); only a
-- measured positive may become a What works line. classification_reason says
-- which text and figure decided. NULL on rows an older rfdb wrote: the report
-- classifies those when it reads them, and the next `rfdb ingest` of their
-- path stores it.
ALTER TABLE learned_findings ADD COLUMN classification TEXT
  CHECK (classification IS NULL OR classification IN ('positive_measured', 'in_noise', 'negative', 'method',
                                                       'seam_fact', 'routing_note', 'archived'));
ALTER TABLE learned_findings ADD COLUMN classification_reason TEXT;
