-- rfdb schema, version 14: the serving stack an attempt was integrated on.
ALTER TABLE attempts ADD COLUMN stack TEXT;
