"""The report: figures and one static HTML page drawn from the warehouse's marts only.

``python -m report`` writes ``$HOSTAWARE_HOME/report/index.html`` (self-contained: figures
embedded, no script, nothing fetched) and every figure as PNG and SVG under ``figures/``;
``python -m report headline`` prints the paper's headline numbers beside the warehouse's
(the crawl plan's command is ``python -m plan``). The paper's
reference values live in ``report.paper``.
"""
