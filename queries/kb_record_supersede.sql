-- A kb record replaced by a rewrite of its session or experience no longer counts.
UPDATE kb_records SET superseded = 1 WHERE record_id = :record_id;
