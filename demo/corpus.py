"""The labelled corpus the demo's fastText classifiers are trained on, and their registry rows.

Each training document is written like a demo page (``text.compose_document_with_scores``), a
quarter of a page's length, from true scores drawn uniformly on the logit scale over
``[-L, L]``. It is labelled from the scores its text spells out (what an annotator reading it
would see: the true scores up to the rounding of its marker counts), by ``ANNOTATIONS``
independent draws: ``P(positive) = s`` for binary classifiers, ``Binomial(K, s)`` for the
ordinal ones (FineWeb-Edu's 0-5, Nemotron's low/mid/high), so that the expected label value
divided by the largest is ``s``. A model whose logits are linear in the marker shares is then
well specified, and it learns scores calibrated to the planted ones.

Why so: fastText fits one vector per word with no regularisation, so what it learns from a
single 0/1 label per document is mostly that label's noise (with 10,800 documents of half a
page and one label each, the demo models scored pages at Pearson 0.91-0.96 with the truth; with
43,200 of a quarter page and 20 labels each, at 0.985-0.988).
A training line that carries several labels is one of fastText's own formats: each time it
visits the line it trains on one of the labels at random, so the target is the share of
positive annotations rather than one coin flip. Shorter documents give more of them for the
same words, and each marker then weighs more in its document's average; labelling from the
written rather than the true score keeps the rounding of their few marker slots (8 in a
110-word document) from flattening the learned logit slope.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import numpy as np

from demo.config import CLASSIFIERS, LANGUAGES
from demo.text import (
    LOGIT_RANGE,
    compose_document_with_scores,
    expected_document_words,
    vocabularies,
)
from ingest.quality import REGISTRY_COLUMNS

__all__ = [
    "ANNOTATIONS",
    "REGISTRY_COLUMNS",
    "registry_rows",
    "write_registry",
    "write_training_corpus",
]

ANNOTATIONS = 20  # labels per training document and classifier, drawn independently
_LENGTH_DIVISOR = 4  # training documents are a quarter of a demo page's length

# Language mix of the training documents (the sample's languages, English first).
_TRAINING_LANGUAGE_SHARE = np.array([0.44, 0.1, 0.07, 0.08, 0.07, 0.1, 0.07, 0.07])


def _label_columns(rng: np.random.Generator, written: np.ndarray) -> tuple[list[list[str]], dict]:
    """Draw ``ANNOTATIONS`` labels per document and classifier from the written scores.

    Returns:
        Per classifier, each document's labels as one string (lowest label first), and the
        label counts per classifier over all annotations.
    """
    tops = np.array([len(spec.labels) - 1 for spec in CLASSIFIERS])
    values = rng.binomial(tops[None, :, None], written[:, :, None], (*written.shape, ANNOTATIONS))
    values.sort(axis=2)
    columns, counts = [], {}
    for column, spec in enumerate(CLASSIFIERS):
        labels = np.asarray(spec.labels, dtype=object)[values[:, column]]
        columns.append([" ".join(row) for row in labels])
        tally = np.bincount(values[:, column].reshape(-1), minlength=len(spec.labels))
        counts[spec.name] = {label: int(n) for label, n in zip(spec.labels, tally, strict=True)}
    return columns, counts


def write_training_corpus(
    rng: np.random.Generator, path: Path, count: int, valid_share: float = 0.1
) -> dict[str, object]:
    """Write the labelled corpus: one gzip TSV with a label column per classifier.

    Columns: ``split`` (``train``/``valid``), one column per classifier holding the document's
    ``ANNOTATIONS`` fastText labels for it (space-separated, as they open a fastText line), and
    ``text`` (one line). One set of documents serves every classifier;
    ``python -m demo classifiers`` writes each model's fastText training file from it.

    Returns:
        A summary for truth.json: the file, row counts, labels per document, and the label
        counts per classifier (over all annotations).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    vocab = vocabularies()
    languages = rng.choice(len(LANGUAGES), size=count, p=_TRAINING_LANGUAGE_SHARE)
    logits = rng.uniform(-LOGIT_RANGE, LOGIT_RANGE, (count, len(CLASSIFIERS)))
    true_scores = 1.0 / (1.0 + np.exp(-logits))
    lengths = expected_document_words(rng, count) // _LENGTH_DIVISOR
    texts = []
    written = np.empty_like(true_scores)
    for index in range(count):
        title, paragraphs, written[index] = compose_document_with_scores(
            rng, vocab[LANGUAGES[languages[index]]], true_scores[index], int(lengths[index])
        )
        texts.append(" ".join([title, *paragraphs]))
    label_columns, label_counts = _label_columns(rng, written)
    n_valid = round(valid_share * count)
    splits = ["valid"] * n_valid + ["train"] * (count - n_valid)
    header = "\t".join(["split", *(spec.name for spec in CLASSIFIERS), "text"])
    rows = ("\t".join(fields) for fields in zip(splits, *label_columns, texts, strict=True))
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
        out.write(("\n".join([header, *rows]) + "\n").encode("utf-8"))
    return {
        "file": f"{path.parent.name}/{path.name}",
        "train_rows": count - n_valid,
        "valid_rows": n_valid,
        "labels_per_document": ANNOTATIONS,
        "label_counts": label_counts,
    }


def registry_rows() -> list[dict[str, str]]:
    """The classifier-registry rows of the demo's classifiers (the dbt seed holds the same).

    ``model_path`` is relative to ``$HOSTAWARE_HOME/raw``; ``python -m demo classifiers`` writes the
    models there.
    """
    rows = []
    for spec in CLASSIFIERS:
        values = (
            ""
            if spec.label_values is None
            else ";".join(
                f"{label}={value:g}"
                for label, value in zip(spec.labels, spec.label_values, strict=True)
            )
        )
        rows.append(
            {
                "classifier": spec.name,
                "style": spec.style,
                "kind": spec.kind,
                "model_path": f"classifiers/{spec.name}.bin",
                "labels": ";".join(spec.labels),
                "positive_label": spec.positive_label or "",
                "label_values": values,
                "score_transform": spec.transform,
                "score_scale": "",  # for precomputed rows only (ingest.quality)
                "hq_threshold": f"{spec.hq_threshold:g}",
                "is_english_trained": "true" if spec.is_english_trained else "false",
                "family": spec.family or "",
            }
        )
    return rows


def write_registry(path: Path) -> None:
    """Write the registry rows as CSV (the same layout as ``seeds/classifier_registry.csv``)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=REGISTRY_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(registry_rows())
