-- The attempt model (migrations/0003_attempt_model.sql describes each column).
ALTER TABLE attempts ADD COLUMN kind TEXT COLLATE "C" NOT NULL DEFAULT 'kernel'
  CHECK (kind IN ('kernel', 'config'));
ALTER TABLE attempts ADD COLUMN candidate_short_name TEXT COLLATE "C";
ALTER TABLE attempts ADD COLUMN task TEXT COLLATE "C";
ALTER TABLE attempts ADD COLUMN measured BIGINT NOT NULL DEFAULT 0 CHECK (measured IN (0, 1));
ALTER TABLE attempts ADD COLUMN deployed BIGINT NOT NULL DEFAULT 0 CHECK (deployed IN (0, 1));
ALTER TABLE attempts ADD COLUMN post_measured BIGINT NOT NULL DEFAULT 0 CHECK (post_measured IN (0, 1));
ALTER TABLE attempts ADD COLUMN reject_reason TEXT COLLATE "C";
ALTER TABLE attempts ADD COLUMN validation_class TEXT COLLATE "C" NOT NULL DEFAULT 'unknown'
  CHECK (validation_class IN ('win', 'no_win', 'flagged', 'unknown'));
ALTER TABLE attempts ADD COLUMN validation_speedup DOUBLE PRECISION;
