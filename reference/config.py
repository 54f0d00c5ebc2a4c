"""The vars of dbt_project.yml and the seeds the analyses read (docs/definitions.md §4.0, §5)."""

from __future__ import annotations

from fractions import Fraction

import pandas as pd
import yaml

from hostaware.paths import PROJECT, SEEDS

__all__ = [
    "ANNOTATION_PROFILES",
    "GRAPH_RELEASES",
    "LANGUAGE_STRATA",
    "REGISTRY",
    "TLD_CATEGORIES",
    "VARS",
    "decimal",
    "hq_thresholds",
    "seed",
]


def seed(name: str) -> pd.DataFrame:
    """A seed's CSV file as dbt reads it (an empty field is null, nothing else is)."""
    return pd.read_csv(SEEDS / f"{name}.csv", keep_default_na=False, na_values=[""])


VARS: dict = yaml.safe_load((PROJECT / "dbt_project.yml").read_text())["vars"]
REGISTRY = seed("classifier_registry")
TLD_CATEGORIES = seed("tld_macro_categories")
LANGUAGE_STRATA = seed("language_strata")
GRAPH_RELEASES = seed("graph_releases")
ANNOTATION_PROFILES = seed("annotation_profiles").set_index("annotation_profile")


def decimal(value: object) -> Fraction:
    """A var as the decimal written in YAML (0.1 is 1/10, not the float nearest to it)."""
    return Fraction(str(value))


def hq_thresholds() -> pd.Series:
    """Each registered classifier's HQ threshold, the registry's ``hq_threshold``.

    The one place it is set (required there); the warehouse's ``int_classifiers`` reads the
    same column.
    """
    thresholds = REGISTRY.set_index("classifier")["hq_threshold"]
    if thresholds.isna().any():
        raise ValueError("seeds/classifier_registry.csv: a row without hq_threshold")
    return thresholds
