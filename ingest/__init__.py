"""hostaware ingest: readers of crawl artefacts, the demo-crawl generator, the CLI."""
