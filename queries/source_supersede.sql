-- Point an older version of a file at the version that replaced it.
UPDATE sources SET superseded_by = :new_id WHERE source_id = :old_id;
