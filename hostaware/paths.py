"""The project's folders and files, with their environment variables and defaults in one place.

Standard library only: ``ingest`` may import this module (and nothing else of ``hostaware``).

* ``PROJECT``: the project folder (the dbt project, ``profiles.yml``, ``seeds/``).
* ``home()``: ``$HOSTAWARE_HOME``, else ``./data``; it holds ``raw/``, ``lake/``,
  ``warehouse.duckdb``, ``exports/`` and ``report/``.
* ``lake()``: ``home()/lake``; ``raw()``: ``home()/raw``, the inputs (and where relative model
  paths of the classifier registry start from).
* ``CLASSIFIER_REGISTRY``, ``GRAPH_RELEASES``: the seeds the ingest reads (the classifier
  registry, the web-graph releases).
* ``warehouse()``: ``$WAREHOUSE_PATH``, else ``home()/warehouse.duckdb`` (as ``profiles.yml``).
* ``exports()``: ``$HOSTAWARE_EXPORTS``, else ``home()/exports`` (as the plan model's location).
* ``dbt_env(...)``: the variables that point dbt at a home and a warehouse.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SEEDS = PROJECT / "seeds"
CLASSIFIER_REGISTRY = SEEDS / "classifier_registry.csv"
GRAPH_RELEASES = SEEDS / "graph_releases.csv"
# The dbt profiles: profiles.yml in the project folder.
PROFILES_DIR = PROJECT

HOME_VARIABLE = "HOSTAWARE_HOME"
WAREHOUSE_VARIABLE = "WAREHOUSE_PATH"
EXPORTS_VARIABLE = "HOSTAWARE_EXPORTS"
PROFILES_VARIABLE = "DBT_PROFILES_DIR"
DEFAULT_HOME = "data"

__all__ = [
    "CLASSIFIER_REGISTRY",
    "DEFAULT_HOME",
    "EXPORTS_VARIABLE",
    "GRAPH_RELEASES",
    "HOME_VARIABLE",
    "PROFILES_DIR",
    "PROFILES_VARIABLE",
    "PROJECT",
    "SEEDS",
    "WAREHOUSE_VARIABLE",
    "dbt_env",
    "exports",
    "home",
    "lake",
    "raw",
    "warehouse",
]


def home() -> Path:
    """``$HOSTAWARE_HOME``, else ``./data`` (an empty value counts as unset)."""
    return Path(os.environ.get(HOME_VARIABLE) or DEFAULT_HOME)


def lake() -> Path:
    """The lake: ``home()/lake``."""
    return home() / "lake"


def raw() -> Path:
    """The raw inputs: ``home()/raw``."""
    return home() / "raw"


def warehouse() -> Path:
    """``$WAREHOUSE_PATH``, else ``home()/warehouse.duckdb`` (as ``profiles.yml``)."""
    named = os.environ.get(WAREHOUSE_VARIABLE)
    return Path(named) if named else home() / "warehouse.duckdb"


def exports() -> Path:
    """``$HOSTAWARE_EXPORTS``, else ``home()/exports``: where dbt writes the exported marts."""
    named = os.environ.get(EXPORTS_VARIABLE)
    return Path(named) if named else home() / "exports"


def dbt_env(
    home: Path,
    warehouse: Path | None = None,
    *,
    profiles_dir: Path = PROFILES_DIR,
    exports: Path | None = None,
) -> dict[str, str]:
    """The environment variables that point dbt at ``home`` (its lake) and ``warehouse``.

    ``warehouse`` defaults to ``home/warehouse.duckdb``; ``exports`` is set only when given.
    """
    env = {
        HOME_VARIABLE: str(home),
        WAREHOUSE_VARIABLE: str(warehouse if warehouse is not None else home / "warehouse.duckdb"),
        PROFILES_VARIABLE: str(profiles_dir),
    }
    if exports is not None:
        env[EXPORTS_VARIABLE] = str(exports)
    return env
