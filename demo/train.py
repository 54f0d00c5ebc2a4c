"""``python -m demo classifiers``: the demo crawl's fastText models.

Reads ``<raw>/training/labelled_corpus.tsv.gz`` (written by ``synth``), trains one fastText
model per registry classifier found in it, checks it on the validation split, and writes
``<raw>/<model_path>`` atomically. Models are trained two at a time in separate processes, each
single-threaded, so the same corpus always gives the same models.

Each corpus row carries several labels per classifier (``demo.corpus.ANNOTATIONS``),
written as the head of the fastText line: at each visit of a line fastText trains on one of its
labels at random, so the model is fitted to the share of positive labels, not to one draw.
The hyperparameters make the models well calibrated on the demo's text (the corpus is built so
that a linear model over averaged word vectors is well specified, see ``demo.text``):
15 epochs at a small learning rate bring the logit slope on the true scores to about 1 without
over-shooting, with about the word updates that 30 epochs over the earlier corpus (a quarter of
the documents, twice as long) took.
"""

from __future__ import annotations

import csv
import gzip
import logging
import os
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from ingest.quality import ClassifierEntry, ClassifierError, FastTextScorer

__all__ = ["TRAINING", "train_demo_classifiers"]

log = logging.getLogger(__name__)

TRAINING = {"epoch": 15, "lr": 0.05, "dim": 16, "wordNgrams": 1, "minCount": 2, "seed": 7}


def _read_corpus(path: Path) -> tuple[list[str], list[list[str]]]:
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader)
        return header, list(reader)


def _train_one(entry: ClassifierEntry, corpus: Path) -> dict:
    import fasttext

    started = time.perf_counter()
    header, rows = _read_corpus(corpus)
    column = header.index(entry.classifier)
    train_lines = [f"{row[column]} {row[-1]}\n" for row in rows if row[0] == "train"]
    valid = [(row[column], row[-1]) for row in rows if row[0] == "valid"]
    entry.model_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", suffix=".txt", dir=entry.model_path.parent, delete=False, encoding="utf-8"
    ) as handle:
        handle.writelines(train_lines)
        train_file = Path(handle.name)
    try:
        model = fasttext.train_supervised(str(train_file), thread=1, verbose=0, **TRAINING)
    finally:
        train_file.unlink()
    temporary = entry.model_path.with_name(f".{entry.model_path.name}.tmp")
    model.save_model(str(temporary))
    os.replace(temporary, entry.model_path)
    # Check the saved file as the ingest will use it: labels, and scores on held-out text.
    scorer = FastTextScorer(entry)
    predicted = scorer.score([text for _, text in valid])
    if entry.score_transform == "p_positive":
        values = {label: float(label == entry.positive_label) for label in entry.labels}
    else:
        top = max(entry.label_values.values())
        values = {label: value / top for label, value in entry.label_values.items()}
    # A row's observed value is the mean over its labels (one per annotation).
    observed = np.array([np.mean([values[one] for one in labels.split()]) for labels, _ in valid])
    return {
        "classifier": entry.classifier,
        "model": str(entry.model_path),
        "train_documents": len(train_lines),
        "valid_documents": len(valid),
        "valid_mean_score": float(predicted.mean()),
        "valid_mean_label_value": float(observed.mean()),
        "valid_brier": float(np.mean((predicted - observed) ** 2)),
        "seconds": time.perf_counter() - started,
    }


def train_demo_classifiers(
    raw: Path, entries: list[ClassifierEntry], workers: int = 2
) -> list[dict]:
    """Train every registry classifier that has a label column in the demo corpus.

    Raises:
        ClassifierError: no corpus, or a registry classifier with no labels in it.
    """
    corpus = raw / "training" / "labelled_corpus.tsv.gz"
    if not corpus.is_file():
        raise ClassifierError(f"no labelled corpus at {corpus}: run `python -m demo crawl` first")
    header, _ = _read_corpus(corpus)
    missing = [entry.classifier for entry in entries if entry.classifier not in header]
    if missing:
        raise ClassifierError(f"{corpus} has no labels for {', '.join(missing)}")
    with ProcessPoolExecutor(max_workers=max(1, min(workers, len(entries)))) as pool:
        results = list(pool.map(_train_one, entries, [corpus] * len(entries)))
    for result in results:
        log.info("trained %s in %.1f s", result["classifier"], result["seconds"])
    return results
