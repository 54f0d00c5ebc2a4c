"""Shared fixtures: demo crawls generated once per test session, the demo classifiers trained
on the tiny one, and the tiny crawl's warehouse (the one fixture every test that reads it uses)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fixtures.crawls import REGISTRY, Crawl, generate_crawl
from tests.fixtures.warehouse.build import tiny_warehouse_or_skip


@pytest.fixture(scope="session")
def tiny_crawl(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    """The tiny crawl (~100 sample hosts), as `make test` builds it."""
    return generate_crawl(tmp_path_factory.mktemp("crawl-tiny") / "raw", "tiny")


@pytest.fixture(scope="session")
def demo_crawl(tmp_path_factory: pytest.TempPathFactory) -> Crawl:
    """The demo crawl (~2,000 sample hosts, ~20,000 pages): enough hosts to check planted truth."""
    return generate_crawl(tmp_path_factory.mktemp("crawl-demo") / "raw", "demo")


@pytest.fixture(scope="session")
def dclm_demo_raw(tiny_crawl: Crawl, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A raw folder holding one demo classifier, dclm_demo, trained on the tiny corpus (for
    ingests that need a model but not all six: the fault and fuzz campaigns)."""
    from demo.train import train_demo_classifiers
    from ingest.quality import load_registry

    folder = tmp_path_factory.mktemp("dclm-demo-raw")
    shutil.copytree(tiny_crawl.root / "training", folder / "training")
    train_demo_classifiers(folder, load_registry(REGISTRY, folder, ["dclm_demo"]))
    return folder


@pytest.fixture(scope="session")
def trained(tiny_crawl: Crawl, tmp_path_factory: pytest.TempPathFactory):
    """The six demo classifiers trained on the tiny crawl's corpus (in a folder of their own,
    so the shared crawl stays as the generator wrote it); returns the registry entries."""
    from demo.train import train_demo_classifiers
    from ingest.quality import load_registry

    raw = tmp_path_factory.mktemp("trained")
    shutil.copytree(tiny_crawl.root / "training", raw / "training")
    entries = load_registry(REGISTRY, raw)
    train_demo_classifiers(raw, entries)
    return entries


@pytest.fixture(scope="session")
def tiny_warehouse_path() -> Path:
    """The tiny crawl's warehouse file, or a skip (see ``tiny_warehouse_or_skip``)."""
    return tiny_warehouse_or_skip()
