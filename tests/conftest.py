"""Shared fixtures: demo crawls generated once per test session."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
import warehouse_fixture

from demo.generate import synthesize

SEED = 20241010
# ../shared beside the project (as CI lays it out), or wherever HOSTAWARE_SHARED points.
SHARED = Path(os.environ.get("HOSTAWARE_SHARED", Path(__file__).resolve().parents[2] / "shared"))
REAL_DATA = SHARED / "data" / "real"


@dataclass(frozen=True)
class Crawl:
    """A generated demo crawl: its folder and its truth.json."""

    root: Path
    truth: dict


def _crawl(factory: pytest.TempPathFactory, scale: str, seed: int = SEED) -> Crawl:
    root = factory.mktemp(f"crawl-{scale}") / "raw"
    synthesize(root, seed, scale)
    return Crawl(root, json.loads((root / "truth.json").read_text()))


@pytest.fixture(scope="session")
def tiny_crawl(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    """The tiny crawl (~100 sample hosts), as `make test` builds it."""
    return _crawl(tmp_path_factory, "tiny")


@pytest.fixture(scope="session")
def dclm_demo_raw(tiny_crawl: Crawl, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A raw folder holding one demo classifier, dclm_demo, trained on the tiny corpus (for
    ingests that need a model but not all six: the fault and fuzz campaigns)."""
    from demo.train import train_demo_classifiers
    from ingest.quality import load_registry

    folder = tmp_path_factory.mktemp("dclm-demo-raw")
    shutil.copytree(tiny_crawl.root / "training", folder / "training")
    registry = Path(__file__).resolve().parents[1] / "seeds" / "classifier_registry.csv"
    train_demo_classifiers(folder, load_registry(registry, folder, ["dclm_demo"]))
    return folder


@pytest.fixture(scope="session")
def demo_crawl(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    """The demo crawl (~2,000 sample hosts, ~20,000 pages): enough hosts to check planted truth."""
    return _crawl(tmp_path_factory, "demo")


@pytest.fixture(scope="session")
def tiny_warehouse_path() -> Path:
    """The tiny crawl's warehouse file, or a skip (see ``tiny_warehouse_or_skip``)."""
    return warehouse_fixture.tiny_warehouse_or_skip()
