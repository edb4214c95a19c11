-- A rewritten champion.json replaces its previous pointer.
UPDATE kb_champions SET superseded = 1 WHERE champion_id = :champion_id;
