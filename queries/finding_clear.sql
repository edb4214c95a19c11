-- Delete the findings read from one stored knowledge file version. A version
-- made current again (a card changed, then changed back on disk) is read
-- anew, and its earlier rows would otherwise stay beside the new ones.
DELETE FROM learned_findings WHERE source_id = :source_id;
