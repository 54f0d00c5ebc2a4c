"""The demo crawl generator (``python -m ingest synth``): Common Crawl formats, planted truth."""
