"""`adapter` for sqlfluff's jinja templater, which lints models without dbt.

The project's cross-engine macros call ``adapter.dispatch(name)()``; here it resolves to the
``default__`` implementation (DuckDB's), so the linter sees the SQL that DuckDB runs.
"""

import jinja2


@jinja2.pass_context
def dispatch(context: jinja2.runtime.Context, macro_name: str, macro_namespace: str | None = None):
    """The ``default__<macro_name>`` macro in scope, as dbt's dispatch on DuckDB."""
    del macro_namespace
    return context.resolve_or_missing(f"default__{macro_name}")
