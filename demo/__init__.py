"""The demo: a crawl in Common Crawl's formats with planted truth, and its classifiers.

``python -m demo crawl`` writes the crawl, ``python -m demo classifiers`` trains its fastText
models. Nothing in ``ingest`` imports this package: the demo feeds the ingest as real files do.
"""
