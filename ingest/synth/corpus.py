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
    rng: np.random.Generator, out_dir: Path, count: int, valid_share: float = 0.1
) -> dict[str, dict[str, str]]:
    """Write ``<classifier>.train.txt`` and ``.valid.txt`` in fastText's format for every classifier.

    One set of documents serves all classifiers: each line is ``<label> <text>``, the text the
    same across the files, the label the classifier's own draw.

    Returns:
        Per classifier, the paths of its training and validation files (relative to out_dir's
        parent).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    vocab = vocabularies()
    languages = rng.choice(len(LANGUAGES), size=count, p=_TRAINING_LANGUAGE_SHARE)
    logits = rng.uniform(-LOGIT_RANGE, LOGIT_RANGE, (count, len(CLASSIFIERS)))
    true_scores = 1.0 / (1.0 + np.exp(-logits))
    lengths = expected_document_words(rng, count) // 2
    n_valid = round(valid_share * count)
    lines: dict[str, list[str]] = {spec.name: [] for spec in CLASSIFIERS}
    for index in range(count):
        title, paragraphs = compose_document(
            rng, vocab[LANGUAGES[languages[index]]], true_scores[index], int(lengths[index])
        )
        text = " ".join([title, *paragraphs])
        for column, spec in enumerate(CLASSIFIERS):
            lines[spec.name].append(f"{_label(rng, spec, true_scores[index, column])} {text}\n")
    files: dict[str, dict[str, str]] = {}
    for spec in CLASSIFIERS:
        train = out_dir / f"{spec.name}.train.txt"
        valid = out_dir / f"{spec.name}.valid.txt"
        train.write_text("".join(lines[spec.name][n_valid:]), encoding="utf-8")
        valid.write_text("".join(lines[spec.name][:n_valid]), encoding="utf-8")
        files[spec.name] = {
            "train": f"{out_dir.name}/{train.name}",
            "valid": f"{out_dir.name}/{valid.name}",
        }
    return files


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
                f"{label}={value:g}" for label, value in zip(spec.labels, spec.label_values, strict=True)
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
