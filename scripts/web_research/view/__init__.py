"""The report view: one self-contained HTML page of a run (`web-research view`)."""
