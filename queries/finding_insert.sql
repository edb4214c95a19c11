-- One imported finding (learned card, legacy playbook line or KB proposal card).
INSERT INTO learned_findings (source_id, origin, identity, name, key_raw, kernel_class_raw,
                              op_class, gfx, regime, regime_raw, model, model_class, type, stars,
                              lever, apply, verify, cautions, sources_cited, effect, iso_min,
                              iso_max, e2e_min_pct, e2e_max_pct, confirms, confirms_cited,
                              confirms_blind, losses, attempts, lifecycle, last_seen, text,
                              fields, classification, classification_reason)
VALUES (:source_id, :origin, :identity, :name, :key_raw, :kernel_class_raw, :op_class, :gfx,
        :regime, :regime_raw, :model, :model_class, :type, :stars, :lever, :apply, :verify,
        :cautions, :sources_cited, :effect, :iso_min, :iso_max, :e2e_min_pct, :e2e_max_pct,
        :confirms, :confirms_cited, :confirms_blind, :losses, :attempts, :lifecycle, :last_seen,
        :text, :fields, :classification, :classification_reason);
