"""Classifier registry, model loading and label handling, on fastText models trained here."""

from __future__ import annotations

from pathlib import Path

import fasttext
import numpy as np
import pytest

from ingest.quality import (
    ClassifierEntry,
    ClassifierError,
    FastTextScorer,
    LanguageIdentifier,
    load_registry,
)

REPO = Path(__file__).resolve().parents[1]


def _train(tmp_path: Path, name: str, examples: list[tuple[str, str]]) -> Path:
    data = tmp_path / f"{name}.txt"
    data.write_text("".join(f"{label} {text}\n" for label, text in examples * 40))
    model = fasttext.train_supervised(
        str(data), epoch=20, lr=0.5, dim=8, thread=1, seed=3, verbose=0
    )
    path = tmp_path / f"{name}.bin"
    model.save_model(str(path))
    return path


@pytest.fixture(scope="module")
def binary_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DCLM-shaped model: labels __label__hq / __label__cc."""
    return _train(
        tmp_path_factory.mktemp("binary"),
        "dclm_like",
        [
            ("__label__hq", "explain the reason because the answer means"),
            ("__label__cc", "click here cheap casino login cart"),
            ("__label__hq", "the theorem and the evidence of research"),
            ("__label__cc", "buy now free shipping subscribe"),
        ],
    )


@pytest.fixture(scope="module")
def ordinal_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A FineWeb-Edu-shaped model: labels __label__0 .. __label__2."""
    return _train(
        tmp_path_factory.mktemp("ordinal"),
        "edu_like",
        [
            ("__label__0", "celebrity gossip sale"),
            ("__label__1", "news about the town today"),
            ("__label__2", "lesson on photosynthesis for students"),
        ],
    )


def _probabilities(path: Path, text: str) -> dict[str, float]:
    labels, probs = fasttext.load_model(str(path)).predict(text, k=-1)
    return dict(zip(labels, probs.tolist(), strict=True))


def test_p_positive_is_the_probability_of_the_positive_label(binary_model: Path):
    entry = ClassifierEntry(
        "dclm_like", "quality", binary_model, ("__label__cc", "__label__hq"), "__label__hq"
    )
    texts = ["explain the evidence", "cheap casino login", "some words in between", ""]
    scores = FastTextScorer(entry).score(texts)
    expected = [_probabilities(binary_model, t)["__label__hq"] for t in texts]
    np.testing.assert_allclose(scores, expected, atol=1e-6)
    assert scores[0] > 0.9 > 0.1 > scores[1]


def test_expected_value_divides_by_the_largest_value(ordinal_model: Path):
    values = {"__label__0": 0.0, "__label__1": 1.0, "__label__2": 2.0}
    entry = ClassifierEntry(
        "edu_like", "quality", ordinal_model, tuple(values), None, values, "expected_value"
    )
    texts = ["lesson for students", "celebrity sale", "town news"]
    scores = FastTextScorer(entry).score(texts)
    for text, score in zip(texts, scores, strict=True):
        probabilities = _probabilities(ordinal_model, text)
        expected = sum(values[label] * p for label, p in probabilities.items()) / 2.0
        assert score == pytest.approx(expected, abs=1e-6)
    assert scores.min() >= 0 and scores.max() <= 1
    assert scores[0] > scores[2] > scores[1]


def test_multi_line_text_is_scored_as_one_line(binary_model: Path):
    entry = ClassifierEntry(
        "dclm_like", "quality", binary_model, ("__label__cc", "__label__hq"), "__label__hq"
    )
    scorer = FastTextScorer(entry)
    one, many = scorer.score(["explain the\n\nevidence  \t here", "explain the evidence here"])
    assert one == pytest.approx(many)


def test_labels_that_differ_from_the_registry_are_an_error(binary_model: Path):
    entry = ClassifierEntry(
        "mislabelled", "quality", binary_model, ("__label__low", "__label__high"), "__label__high"
    )
    with pytest.raises(ClassifierError, match=r"mislabelled.*__label__cc.*__label__high"):
        FastTextScorer(entry).score(["x"])


def test_a_missing_model_file_is_an_error(tmp_path: Path):
    entry = ClassifierEntry(
        "absent", "quality", tmp_path / "absent.bin", ("__label__cc", "__label__hq"), "__label__hq"
    )
    with pytest.raises(ClassifierError, match=r"absent\.bin does not exist"):
        FastTextScorer(entry).score(["x"])


def test_entries_are_checked_when_declared(tmp_path: Path):
    with pytest.raises(ClassifierError, match="positive_label"):
        ClassifierEntry("x", "quality", tmp_path, ("__label__a",), "__label__b")
    with pytest.raises(ClassifierError, match="value for every label"):
        ClassifierEntry(
            "x",
            "quality",
            tmp_path,
            ("__label__a", "__label__b"),
            None,
            {"__label__a": 1.0},
            "expected_value",
        )


def test_the_seed_registry_loads_with_paths_under_raw(tmp_path: Path):
    entries = load_registry(REPO / "seeds" / "classifier_registry.csv", tmp_path)
    assert len(entries) == 6
    by_name = {entry.classifier: entry for entry in entries}
    edu = by_name["fineweb_edu_demo"]
    assert edu.score_transform == "expected_value"
    assert edu.label_values["__label__5"] == 5.0
    assert by_name["dclm_demo"].model_path == tmp_path / "classifiers" / "dclm_demo.bin"
    only = load_registry(REPO / "seeds" / "classifier_registry.csv", tmp_path, ["dclm_demo"])
    assert [entry.classifier for entry in only] == ["dclm_demo"]
    with pytest.raises(ClassifierError, match="no registry row for nope"):
        load_registry(REPO / "seeds" / "classifier_registry.csv", tmp_path, ["nope"])


def test_a_malformed_registry_row_names_file_and_line(tmp_path: Path):
    registry = tmp_path / "registry.csv"
    registry.write_text(
        "classifier,style,kind,model_path,labels,positive_label,label_values,score_transform,"
        "hq_threshold,is_english_trained\n"
        "ok,s,quality,a.bin,__label__a;__label__b,__label__b,,p_positive,0.5,true\n"
        "bad,s,quality,b.bin,__label__a;__label__b,,__label__a=x,expected_value,0.5,true\n"
    )
    with pytest.raises(ClassifierError, match=r"registry.csv:3: .*not a number"):
        load_registry(registry, tmp_path)


def test_language_identifier_runs_offline_from_the_shipped_model():
    identifier = LanguageIdentifier()
    assert identifier.model_path().name == "lid.176.ftz"
    results = identifier.identify(
        [
            "This is an English sentence about the weather and research.",
            "Das ist ein deutscher Satz über die Forschung und das Wetter.",
            "Это русское предложение о погоде и исследованиях.",
            "   ",
        ]
    )
    assert [code for code, _ in results] == ["en", "de", "ru", None]
    assert all(0.5 < probability <= 1 for _, probability in results[:3])
