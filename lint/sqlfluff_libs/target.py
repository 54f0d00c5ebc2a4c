"""`target` for sqlfluff's jinja templater: the linter sees the DuckDB build's SQL.

A model that picks a node by engine (``target.type == 'spark'``) is linted as on DuckDB, the
same side as the dialect macros (adapter.py).
"""

type = "duckdb"  # dbt's name for the adapter type
name = "dev"
