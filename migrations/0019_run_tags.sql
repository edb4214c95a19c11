-- rfdb schema, version 19: user tags on runs (issue 33), `rfdb tag` / `rfdb untag`.
--
-- Tags are user metadata (quantization, tp, architecture family …): they
-- group and filter runs (`rfdb runs --tag key=value`) and never change
-- priors, the report or any derived row, so no derivation version follows
-- them. A re-ingest of the run keeps them (the run row is updated, never
-- deleted). Keys: letters, digits, `_`, `-`, `.` (1–64 bytes, starting with a
-- letter or digit); values: 1–256 bytes of UTF-8 without control characters
-- (domain/tags.hpp checks both before anything is written).

-- The current tags: one value per (run, key); re-tagging a key replaces it.
CREATE TABLE run_tags (
  run_id TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
) STRICT;
CREATE INDEX run_tags_key ON run_tags (key, value);

-- Every tag and untag, oldest first (as retraction_log keeps retractions):
-- action 'tag' with the value set (a first value or a replacement), or
-- 'untag' with the value removed.
CREATE TABLE tag_log (
  event_id INTEGER PRIMARY KEY,
  run_id   TEXT NOT NULL REFERENCES runs(run_id) ON DELETE CASCADE,
  action   TEXT NOT NULL CHECK (action IN ('tag', 'untag')),
  key      TEXT NOT NULL,
  value    TEXT NOT NULL, -- tag: the new value; untag: the value removed
  at       TEXT NOT NULL  -- ISO-8601 UTC timestamp
) STRICT;
CREATE INDEX tag_log_run ON tag_log (run_id, event_id);
