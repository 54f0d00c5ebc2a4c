"""The labelled corpus the demo's fastText classifiers are trained on, and their registry rows.

Each training document is written like a demo page (``text.compose_document``) from true
scores drawn uniformly on the logit scale over ``[-L, L]``, and labelled at random from them:
``P(positive) = t`` for binary classifiers, ``Binomial(K, t)`` for the ordinal ones (FineWeb-Edu's
0-5, Nemotron's low/mid/high), so that the expected label value divided by the largest is ``t``.
A model whose logits are linear in the marker shares is then well specified, and it learns
scores calibrated to the planted ones.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import numpy as np

from ingest.synth.config import CLASSIFIERS, LANGUAGES, ClassifierSpec
from ingest.synth.text import LOGIT_RANGE, compose_document, expected_document_words, vocabularies

__all__ = ["REGISTRY_COLUMNS", "registry_rows", "write_registry", "write_training_corpus"]

# Language mix of the training documents (the sample's languages, English first).
_TRAINING_LANGUAGE_SHARE = np.array([0.44, 0.1, 0.07, 0.08, 0.07, 0.1, 0.07, 0.07])

REGISTRY_COLUMNS = (
    "classifier",
    "style",
    "kind",
    "model_path",
    "labels",
    "positive_label",
    "label_values",
    "score_transform",
    "hq_threshold",
    "is_english_trained",
)


def _label(rng: np.random.Generator, spec: ClassifierSpec, true_score: float) -> str:
    if spec.label_values is None:
        return spec.labels[1] if rng.random() < true_score else spec.labels[0]
    return spec.labels[int(rng.binomial(len(spec.labels) - 1, true_score))]


def write_training_corpus(
    rng: np.random.Generator, path: Path, count: int, valid_share: float = 0.1
) -> dict[str, object]:
    """Write the labelled corpus: one gzip TSV with a label column per classifier.

    Columns: ``split`` (``train``/``valid``), one column per classifier holding its fastText
    label for the document, and ``text`` (one line). One set of documents serves every
    classifier; ``train-demo-classifiers`` writes each model's fastText training file from it.

    Returns:
        A summary for truth.json: the file, row counts, and the label counts per classifier.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    vocab = vocabularies()
    languages = rng.choice(len(LANGUAGES), size=count, p=_TRAINING_LANGUAGE_SHARE)
    logits = rng.uniform(-LOGIT_RANGE, LOGIT_RANGE, (count, len(CLASSIFIERS)))
    true_scores = 1.0 / (1.0 + np.exp(-logits))
    lengths = expected_document_words(rng, count) // 2
    n_valid = round(valid_share * count)
    label_counts: dict[str, dict[str, int]] = {spec.name: {} for spec in CLASSIFIERS}
    header = "\t".join(["split", *(spec.name for spec in CLASSIFIERS), "text"])
    lines = [header]
    for index in range(count):
        title, paragraphs = compose_document(
            rng, vocab[LANGUAGES[languages[index]]], true_scores[index], int(lengths[index])
        )
        labels = [
            _label(rng, spec, true_scores[index, column]) for column, spec in enumerate(CLASSIFIERS)
        ]
        for spec, label in zip(CLASSIFIERS, labels, strict=True):
            label_counts[spec.name][label] = label_counts[spec.name].get(label, 0) + 1
        split = "valid" if index < n_valid else "train"
        lines.append("\t".join([split, *labels, " ".join([title, *paragraphs])]))
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
        out.write(("\n".join(lines) + "\n").encode("utf-8"))
    return {
        "file": f"{path.parent.name}/{path.name}",
        "train_rows": count - n_valid,
        "valid_rows": n_valid,
        "label_counts": label_counts,
    }


def registry_rows() -> list[dict[str, str]]:
    """The classifier-registry rows of the demo's classifiers (the dbt seed holds the same).

    ``model_path`` is relative to ``$HOSTAWARE_HOME/raw``; ``train-demo-classifiers`` writes the
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
                "hq_threshold": f"{spec.hq_threshold:g}",
                "is_english_trained": "true" if spec.is_english_trained else "false",
            }
        )
    return rows


def write_registry(path: Path) -> None:
    """Write the registry rows as CSV (the same layout as ``seeds/classifier_registry.csv``)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=REGISTRY_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(registry_rows())
