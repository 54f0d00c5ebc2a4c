"""Classifier registry, model loading and label handling, on fastText models trained here."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import fasttext
import numpy as np
import pytest

from ingest.quality import (
    REGISTRY_COLUMNS,
    ClassifierEntry,
    ClassifierError,
    FastTextScorer,
    LanguageIdentifier,
    load_registry,
)

REPO = Path(__file__).resolve().parents[2]


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
        "dclm_like",
        "quality",
        binary_model,
        ("__label__cc", "__label__hq"),
        "__label__hq",
        hq_threshold=0.5,
    )
    texts = ["explain the evidence", "cheap casino login", "some words in between", ""]
    scores = FastTextScorer(entry).score(texts)
    expected = [_probabilities(binary_model, t)["__label__hq"] for t in texts]
    np.testing.assert_allclose(scores, expected, atol=1e-6)
    assert scores[0] > 0.9 > 0.1 > scores[1]


def test_expected_value_divides_by_the_largest_value(ordinal_model: Path):
    values = {"__label__0": 0.0, "__label__1": 1.0, "__label__2": 2.0}
    entry = ClassifierEntry(
        "edu_like",
        "quality",
        ordinal_model,
        tuple(values),
        None,
        values,
        "expected_value",
        hq_threshold=0.5,
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
        "dclm_like",
        "quality",
        binary_model,
        ("__label__cc", "__label__hq"),
        "__label__hq",
        hq_threshold=0.5,
    )
    scorer = FastTextScorer(entry)
    one, many = scorer.score(["explain the\n\nevidence  \t here", "explain the evidence here"])
    assert one == pytest.approx(many)


def test_labels_that_differ_from_the_registry_are_an_error(binary_model: Path):
    entry = ClassifierEntry(
        "mislabelled",
        "quality",
        binary_model,
        ("__label__low", "__label__high"),
        "__label__high",
        hq_threshold=0.5,
    )
    with pytest.raises(ClassifierError, match=r"mislabelled.*__label__cc.*__label__high"):
        FastTextScorer(entry).score(["x"])


def test_a_missing_model_file_is_an_error(tmp_path: Path):
    entry = ClassifierEntry(
        "absent",
        "quality",
        tmp_path / "absent.bin",
        ("__label__cc", "__label__hq"),
        "__label__hq",
        hq_threshold=0.5,
    )
    with pytest.raises(ClassifierError, match=r"absent\.bin does not exist"):
        FastTextScorer(entry).score(["x"])


def test_entries_are_checked_when_declared(tmp_path: Path):
    with pytest.raises(ClassifierError, match="positive_label"):
        ClassifierEntry("x", "quality", tmp_path, ("__label__a",), "__label__b", hq_threshold=0.5)
    with pytest.raises(ClassifierError, match="value for every label"):
        ClassifierEntry(
            "x",
            "quality",
            tmp_path,
            ("__label__a", "__label__b"),
            None,
            {"__label__a": 1.0},
            "expected_value",
            hq_threshold=0.5,
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


_COLUMNS = REGISTRY_COLUMNS
_GOOD = {
    "classifier": "ok",
    "style": "s",
    "kind": "quality",
    "model_path": "a.bin",
    "labels": "__label__a;__label__b",
    "positive_label": "__label__b",
    "label_values": "",
    "score_transform": "p_positive",
    "score_scale": "",
    "hq_threshold": "0.5",
    "is_english_trained": "true",
}
_PRECOMPUTED = {
    **_GOOD,
    "model_path": "",
    "labels": "",
    "positive_label": "",
    "score_transform": "precomputed",
    "score_scale": "5",
}
_EXPECTED = {
    **_GOOD,
    "labels": "__label__0;__label__1",
    "positive_label": "",
    "label_values": "__label__0=0;__label__1=1",
    "score_transform": "expected_value",
}


def _registry(tmp_path: Path, *rows: dict[str, str], columns=_COLUMNS) -> Path:
    path = tmp_path / "registry.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({**_GOOD, "classifier": "bad", "hq_threshold": ""}, "hq_threshold is required"),
        ({**_GOOD, "classifier": "bad", "hq_threshold": "  "}, "hq_threshold is required"),
        (
            {**_GOOD, "classifier": "bad", "hq_threshold": "high"},
            "hq_threshold 'high' is not a number",
        ),
        (
            {**_GOOD, "classifier": "bad", "hq_threshold": "1.5"},
            r"hq_threshold 1\.5 is not a number in \[0, 1\]",
        ),
        (
            {**_GOOD, "classifier": "bad", "hq_threshold": "-0.1"},
            r"hq_threshold -0\.1 is not a number in \[0, 1\]",
        ),
        (
            {**_GOOD, "classifier": "bad", "hq_threshold": "nan"},
            r"hq_threshold nan is not a number in \[0, 1\]",
        ),
        ({**_PRECOMPUTED, "classifier": "bad", "score_scale": ""}, "precomputed needs score_scale"),
        (
            {**_PRECOMPUTED, "classifier": "bad", "score_scale": "0"},
            "precomputed needs score_scale",
        ),
        (
            {**_PRECOMPUTED, "classifier": "bad", "score_scale": "inf"},
            "precomputed needs score_scale",
        ),
        (
            {**_PRECOMPUTED, "classifier": "bad", "score_scale": "five"},
            "score_scale 'five' is not a number",
        ),
        (
            {**_PRECOMPUTED, "classifier": "bad", "model_path": "x.bin"},
            "runs no model here: leave model_path empty",
        ),
        (
            {
                **_PRECOMPUTED,
                "classifier": "bad",
                "labels": "__label__a",
                "positive_label": "__label__a",
            },
            "leave labels, positive_label empty",
        ),
        ({**_GOOD, "classifier": "bad", "score_scale": "5"}, "score_scale is for precomputed rows"),
        ({**_GOOD, "classifier": "bad", "model_path": ""}, "p_positive needs a model_path"),
        ({**_GOOD, "classifier": "bad", "positive_label": ""}, "p_positive needs a positive_label"),
        ({**_GOOD, "classifier": "bad", "labels": ""}, "labels are required"),
        ({**_GOOD, "classifier": "bad", "labels": "*;__label__b"}, "'\\*' stands alone"),
        (
            {**_EXPECTED, "classifier": "bad", "labels": "*"},
            "expected_value needs its labels listed",
        ),
        (
            {**_EXPECTED, "classifier": "bad", "label_values": "__label__0=0"},
            "a value for every label",
        ),
        (
            {**_GOOD, "classifier": "bad", "score_transform": "logit"},
            "unknown score_transform 'logit'",
        ),
        ({**_GOOD, "classifier": "bad", "kind": "other"}, "kind 'other' is not one of"),
        ({**_GOOD}, r"classifier 'ok' is listed twice \(first on line 2\)"),
    ],
)
def test_a_bad_registry_row_is_an_error_naming_file_and_line(
    tmp_path: Path, row: dict[str, str], message: str
):
    registry = _registry(tmp_path, _GOOD, row)
    with pytest.raises(ClassifierError, match=rf"^{re.escape(str(registry))}:3: .*{message}"):
        load_registry(registry, tmp_path)


def test_a_registry_without_a_threshold_column_is_refused(tmp_path: Path):
    columns = tuple(column for column in _COLUMNS if column != "hq_threshold")
    registry = _registry(tmp_path, _GOOD, columns=columns)
    with pytest.raises(ClassifierError, match=r"registry.csv:1: missing column\(s\) hq_threshold"):
        load_registry(registry, tmp_path)


def test_thresholds_and_precomputed_rows_load_as_declared(tmp_path: Path):
    registry = _registry(
        tmp_path,
        {**_GOOD, "hq_threshold": "0.018112"},
        {**_PRECOMPUTED, "classifier": "edu", "score_transform": "precomputed_clipped"},
        {**_GOOD, "classifier": "english", "labels": "*", "positive_label": "__label__en"},
    )
    ok, edu, english = load_registry(registry, tmp_path)
    assert ok.hq_threshold == 0.018112 and not ok.is_precomputed and ok.score_scale is None
    assert (edu.model_path, edu.labels, edu.score_scale, edu.hq_threshold) == (None, (), 5.0, 0.5)
    assert edu.is_precomputed and edu.score_transform == "precomputed_clipped"
    assert english.accepts_any_labels and english.labels == ("*",)
    # A registry written before score_scale existed still loads (no row is precomputed).
    old = _registry(tmp_path, _GOOD, columns=tuple(c for c in _COLUMNS if c != "score_scale"))
    assert load_registry(old, tmp_path)[0].score_scale is None


def test_a_precomputed_classifier_has_no_model_to_run(tmp_path: Path):
    (edu,) = load_registry(_registry(tmp_path, _PRECOMPUTED), tmp_path)
    with pytest.raises(ClassifierError, match=r"'ok' is precomputed: it has no model to run"):
        FastTextScorer(edu).score(["x"])


def test_lid176_scores_english_through_the_registry_without_listing_its_labels(tmp_path: Path):
    model = LanguageIdentifier.model_path()
    registry = _registry(
        tmp_path,
        {
            **_GOOD,
            "classifier": "lid176_english",
            "kind": "topic",
            "model_path": str(model),
            "labels": "*",
            "positive_label": "__label__en",
        },
    )
    (entry,) = load_registry(registry, tmp_path)
    texts = [
        "This is an English sentence about the weather and the research of the university.",
        "Das ist ein deutscher Satz über die Forschung und das Wetter in der Stadt.",
        "Ceci est une phrase française sur la recherche et le temps qu'il fait.",
        "Ceci est une phrase",  # lid.176 (hierarchical softmax) leaves __label__en out
        "",
    ]
    scores = FastTextScorer(entry).score(texts)
    reference = fasttext.load_model(str(model))
    assert len(reference.get_labels()) == 176
    expected = []
    for text in texts:
        labels, probabilities = reference.predict(" ".join(text.split()), k=-1)
        by_label = dict(zip(labels, probabilities.tolist(), strict=True))
        expected.append(by_label.get("__label__en", 0.0))
    assert "__label__en" not in reference.predict(texts[3], k=-1)[0]
    np.testing.assert_allclose(scores, np.clip(expected, 0, 1), atol=1e-6)
    assert scores[0] > 0.9 and scores[1] < 0.1 and scores[2] < 0.1 and scores[3] == 0.0
    # The one label named must exist in the model.
    wrong = load_registry(
        _registry(
            tmp_path,
            {**_GOOD, "model_path": str(model), "labels": "*", "positive_label": "__label__xx"},
        ),
        tmp_path,
    )[0]
    with pytest.raises(ClassifierError, match=r"has no label '__label__xx' \(its 176 labels"):
        FastTextScorer(wrong).score(["x"])


EXAMPLE = REPO / "examples" / "classifier_registry.published.csv"


def test_the_published_example_registry_loads_with_its_documented_numbers(tmp_path: Path):
    entries = {entry.classifier: entry for entry in load_registry(EXAMPLE, tmp_path)}
    assert sorted(entries) == sorted(
        [
            "dclm_oh_eli5",
            "gneissweb_quality",
            "gneissweb_medical",
            "gneissweb_education",
            "gneissweb_technology_computing",
            "gneissweb_science",
            "fineweb_edu_fasttext",
            "fineweb_edu_bert",
            "nemotron_cc_mixtral_edu",
            "nemotron_cc_nemotron4_edu",
            "lid176_english",
        ]
    )
    dclm = entries["dclm_oh_eli5"]
    assert dclm.model_path == (
        tmp_path / "classifiers" / "openhermes_reddit_eli5_vs_rw_v2_bigram_200k_train.bin"
    )
    assert (dclm.labels, dclm.positive_label, dclm.hq_threshold) == (
        ("__label__cc", "__label__hq"),
        "__label__hq",
        0.018112,
    )
    assert entries["gneissweb_quality"].hq_threshold == 0.03
    assert entries["gneissweb_quality"].positive_label == "__label__hq"
    for name, label in [
        ("medical", "medical"),
        ("education", "education"),
        ("technology_computing", "technology"),
        ("science", "science"),
    ]:
        entry = entries[f"gneissweb_{name}"]
        assert entry.kind == "topic" and entry.hq_threshold == 0.5
        assert entry.labels == ("__label__cc", f"__label__{label}")
        assert entry.positive_label == f"__label__{label}"
        assert entry.model_path.name == f"fasttext_{name}.bin"
    edu = entries["fineweb_edu_fasttext"]
    assert edu.labels == tuple(f"__label__{i}" for i in range(6))
    assert edu.label_values == {f"__label__{i}": float(i) for i in range(6)}
    assert edu.score_transform == "expected_value" and edu.hq_threshold == 0.5
    for name in ("fineweb_edu_bert", "nemotron_cc_mixtral_edu", "nemotron_cc_nemotron4_edu"):
        entry = entries[name]
        assert entry.is_precomputed and entry.model_path is None
        assert (entry.score_transform, entry.score_scale, entry.hq_threshold) == (
            "precomputed_clipped",
            5.0,
            0.5,
        )
    lid = entries["lid176_english"]
    assert lid.accepts_any_labels and lid.positive_label == "__label__en"
    # Every row's numbers are sourced in the README beside the file.
    readme = (EXAMPLE.parent / "README.md").read_text()
    for name in entries:
        assert f"`{name}`" in readme, name
    for number in ("0.018112", "0.03", "0.002", "2.5"):
        assert number in readme, number


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


def test_a_missing_or_unreadable_registry_is_one_classifier_error_naming_it(tmp_path: Path):
    missing = tmp_path / "nope.csv"
    with pytest.raises(ClassifierError, match=rf"cannot read the classifier registry {missing}"):
        load_registry(missing, tmp_path)
    with pytest.raises(ClassifierError, match=rf"cannot read the classifier registry {tmp_path}"):
        load_registry(tmp_path, tmp_path)  # a folder
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ClassifierError, match=rf"{binary}: not a UTF-8 CSV classifier registry"):
        load_registry(binary, tmp_path)


@pytest.mark.parametrize("command", ["documents", "scores", "demo classifiers"])
def test_a_missing_registry_is_a_one_line_cli_error(tmp_path: Path, capsys, command: str):
    from demo.__main__ import main as demo_main
    from ingest.__main__ import main

    missing = tmp_path / "nope.csv"
    run, arguments, prog = {
        "documents": (
            main,
            ["documents", "--crawl", "CC-MAIN-2024-10", "--warc", str(tmp_path)],
            "python -m ingest documents",
        ),
        "scores": (
            main,
            ["scores", "--lake", str(tmp_path), "--path", str(tmp_path / "x.csv")],
            "python -m ingest scores",
        ),
        "demo classifiers": (
            demo_main,
            ["classifiers", "--raw", str(tmp_path)],
            "python -m demo classifiers",
        ),
    }[command]
    code = run([*arguments, "--registry", str(missing)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    assert err.startswith(f"{prog}: error: cannot read the classifier")
