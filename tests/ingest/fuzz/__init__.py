"""The fuzz campaign's helpers: mutators of ingest inputs and an oracle that checks each run.

Nothing here imports the ingest's readers: the WARC splitter, the line counter and the value
checks are written from the formats (FORMATS.md), so that they are an independent reference.
"""
