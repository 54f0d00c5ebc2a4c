"""The planted quality reaches the text: fastText models trained on the labelled corpus score the
demo pages in line with their true scores (issue: "the quality signal must reach the text").

This trains two small models directly with fastText; `train-demo-classifiers` does the same for
all six and fills the registry.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import fasttext
import numpy as np
import pyarrow.parquet as pq
from resiliparse.extract.html2text import extract_plain_text
from resiliparse.parse.encoding import bytes_to_str, detect_encoding
from resiliparse.parse.html import HTMLTree
from scipy.stats import spearmanr
from warcio.archiveiterator import ArchiveIterator

from ingest.synth.config import CLASSIFIERS, SAMPLE_CRAWL
from tests.conftest import Crawl


def _train(crawl: Crawl, tmp_path: Path, name: str) -> fasttext.FastText._FastText:
    column = 1 + [spec.name for spec in CLASSIFIERS].index(name)
    with gzip.open(crawl.root / "training" / "labelled_corpus.tsv.gz", "rt") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    train = tmp_path / f"{name}.txt"
    train.write_text("".join(f"{row[column]} {row[-1]}\n" for row in rows if row[0] == "train"))
    return fasttext.train_supervised(
        str(train),
        epoch=30,
        lr=0.05,
        dim=16,
        wordNgrams=1,
        minCount=2,
        thread=1,
        seed=7,
        verbose=0,
    )


def _pages(crawl: Crawl) -> dict[str, str]:
    texts = {}
    for path in sorted((crawl.root / "warc" / SAMPLE_CRAWL).glob("*.warc.gz")):
        with path.open("rb") as handle:
            for record in ArchiveIterator(handle):
                http = record.http_headers
                if record.rec_type != "response" or http.get_statuscode() != "200":
                    continue
                if not (http.get_header("Content-Type") or "").startswith("text/html"):
                    continue
                body = record.content_stream().read()
                html = bytes_to_str(body, detect_encoding(body))
                text = extract_plain_text(HTMLTree.parse(html), main_content=True)
                texts[record.rec_headers.get_header("WARC-Record-ID")] = " ".join(text.split())
    return texts


def _expected_value(model, text: str, values: dict[str, float]) -> float:
    labels, probs = model.predict(text, k=-1)
    return sum(values[label] * p for label, p in zip(labels, probs, strict=True)) / max(
        values.values()
    )


def test_classifiers_trained_on_the_corpus_recover_true_scores(demo_crawl: Crawl, tmp_path: Path):
    truth = (
        pq.read_table(
            demo_crawl.root / "gneissweb-annotations" / f"crawl={SAMPLE_CRAWL}",
            columns=["id", "cosmo_fastText_score", "education_score"],
        )
        .to_pandas()
        .set_index("id")
    )
    pages = _pages(demo_crawl)
    ids = list(pages)
    quality = _train(demo_crawl, tmp_path, "gneissweb_quality_demo")
    predicted = np.array(
        [_expected_value(quality, pages[i], {"__label__cc": 0, "__label__hq": 1}) for i in ids]
    )
    true = truth.loc[ids, "cosmo_fastText_score"].to_numpy()
    assert spearmanr(predicted, true)[0] > 0.9
    assert np.mean(np.abs(predicted - true)) < 0.1, "scores come out calibrated"
    logit = lambda p: np.log(np.clip(p, 1e-6, 1 - 1e-6)) - np.log1p(-np.clip(p, 1e-6, 1 - 1e-6))  # noqa: E731
    slope = np.polyfit(logit(true), logit(predicted), 1)[0]
    assert 0.8 < slope < 1.25, "the model is well specified: logit(predicted) ~ logit(true)"
    edu = _train(demo_crawl, tmp_path, "fineweb_edu_demo")
    values = {f"__label__{i}": float(i) for i in range(6)}
    predicted = np.array([_expected_value(edu, pages[i], values) for i in ids])
    true = truth.loc[ids, "education_score"].to_numpy()
    assert spearmanr(predicted, true)[0] > 0.9
    assert np.mean(np.abs(predicted - true)) < 0.1
