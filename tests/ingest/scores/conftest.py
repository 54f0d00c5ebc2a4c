"""Fixtures of the `ingest.scores` tests: a registry with fastText and precomputed classifiers,
a lake of committed documents (and one crashed file's), and real pages through the document
ingest.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from ingest.documents import ingest_documents
from ingest.quality import load_registry
from tests.fixtures.crawls import REAL_DATA
from tests.ingest.scores.lakes import (
    CRAWL,
    LATER,
    REAL_CRAWL,
    REGISTRY_ROWS,
    _commit_documents,
    _id,
)


@pytest.fixture(scope="module")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("registry") / "classifier_registry.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(
            [
                *("classifier", "style", "kind", "model_path", "labels", "positive_label"),
                *("label_values", "score_transform", "score_scale", "hq_threshold"),
                "is_english_trained",
            ]
        )
        for name, kind, model, labels, positive, transform, scale in REGISTRY_ROWS:
            writer.writerow(
                [name, "test", kind, model, labels, positive, "", transform, scale, "0.5", "true"]
            )
    return path


@pytest.fixture(scope="module")
def entries(registry: Path):
    return load_registry(registry, registry.parent)


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    """d1-d4 in CRAWL; d5 in LATER at d1's URL; d6 in CRAWL at d4's URL (two captures);
    d9 written but not committed (its file has no manifest row)."""
    lake = tmp_path / "lake"
    _commit_documents(
        lake,
        "first",
        CRAWL,
        [(_id(n), f"https://a.example/{n}") for n in (1, 2, 3, 4)],
    )
    _commit_documents(lake, "later", LATER, [(_id(5), "https://a.example/1")])
    _commit_documents(lake, "again", CRAWL, [(_id(6), "https://a.example/4")])
    _commit_documents(lake, "crashed", CRAWL, [(_id(9), "https://a.example/9")], commit=False)
    return lake


@pytest.fixture(scope="module")
def real_lake(entries, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real Common Crawl WARC excerpt through the document ingest, with a registry holding a
    fastText classifier with labels '*' (lid.176) and two precomputed ones."""
    folder = tmp_path_factory.mktemp("real")
    warc = Path(shutil.copy(REAL_DATA / "resiliparse-cc" / "warcfile.warc.gz", folder))
    lake = folder / "lake"
    usable = [entry for entry in entries if entry.classifier != "dclm_demo"]  # no model file
    ingest_documents([warc], REAL_CRAWL, lake, usable, workers=1)
    return lake
