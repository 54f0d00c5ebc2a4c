"""`var` for sqlfluff's jinja templater: the vars of dbt_project.yml, as dbt gives them.

sqlfluff's own dbt `var()` returns the placeholder string "item" whatever the var, which a
model that checks its vars (the crawl plan's constraints, int_plan_scenarios) rightly refuses;
here each var is its value in dbt_project.yml, so the linter sees the SQL the default build
runs. The module itself is what the templater calls (a library module is named by its file).
"""

import sys
import types
from pathlib import Path

import yaml

_PROJECT = Path(__file__).resolve().parents[2] / "dbt_project.yml"
_VARS = yaml.safe_load(_PROJECT.read_text())["vars"]


class _Var(types.ModuleType):
    """A module called as dbt's ``var(name, default)``."""

    unsafe_callable = False
    alters_data = False

    def __call__(self, name: str, default: object = None) -> object:
        return _VARS.get(name, default)


sys.modules[__name__].__class__ = _Var
