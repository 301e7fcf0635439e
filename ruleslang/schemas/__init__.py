"""JSON Schemas of the data files (maps, scenarios, saves), read by base.yamlio."""
