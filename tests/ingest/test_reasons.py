"""Every reason the ingest can write is registered in ``ingest/reasons.py`` and listed in
``docs/formats.md``; the books refuse any other.

The code is read, not run: every string literal handed to a call that rejects or nulls (and every
reason-shaped f-string there) must be a registered reason or a column name, and every registered
reason must be written somewhere, so the registry has no reason the code lost either.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from hostaware.paths import PROJECT
from ingest import reasons, schemas
from ingest.lake import IngestReport, LakeError

_REASON_CALLS = re.compile(r"reject|null|Rejection|Damage|MalformedError", re.IGNORECASE)
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$|^[a-z]+$")
_MODULES = sorted((PROJECT / "ingest").glob("*.py"))


def _docs_table() -> str:
    text = (PROJECT / "docs" / "formats.md").read_text()
    begin, end = "<!-- reasons:begin -->\n", "<!-- reasons:end -->"
    return text[text.index(begin) + len(begin) : text.index(end)]


def _columns() -> set[str]:
    names = set()
    for value in vars(schemas).values():
        if hasattr(value, "names") and isinstance(getattr(value, "names", None), list):
            names.update(value.names)
    for schema, _ in schemas.TABLES.values():
        names.update(schema.names)
    return names


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            function = node.func
            name = getattr(function, "attr", None) or getattr(function, "id", "")
            if _REASON_CALLS.search(name) and name not in ("is_null", "fill_null"):
                yield node


def _literals_in_reason_calls() -> dict[str, set[str]]:
    """Reason-shaped string literals (and f-string heads) inside rejecting/nulling calls."""
    found: dict[str, set[str]] = {}
    for path in _MODULES:
        for call in _calls(ast.parse(path.read_text())):
            for argument in [*call.args, *(keyword.value for keyword in call.keywords)]:
                for node in ast.walk(argument):
                    if isinstance(node, ast.Constant) and isinstance(node.value, str):
                        if _SNAKE.match(node.value):
                            found.setdefault(node.value, set()).add(path.name)
                    elif isinstance(node, ast.JoinedStr) and isinstance(
                        node.values[0], ast.Constant
                    ):
                        head = node.values[0].value
                        if _SNAKE.match(head.rstrip("_")) and head.endswith("_"):
                            found.setdefault(head + "<column>", set()).add(path.name)
    return found


def test_the_docs_list_every_reason_the_registry_holds():
    assert _docs_table() == reasons.markdown_table(), (
        "docs/formats.md's reason table differs from ingest/reasons.py: paste "
        "`python -m ingest.reasons` between its reasons:begin/end markers"
    )


def test_every_reason_literal_in_the_code_is_registered():
    columns = _columns()
    unregistered = {
        literal: files
        for literal, files in _literals_in_reason_calls().items()
        if literal not in columns
        and literal not in reasons.TEMPLATES
        and not reasons.is_registered(literal, "rejected")
        and not reasons.is_registered(literal, "nulled")
        and literal not in ("rows", "row", "byte")  # words of messages, not reasons
    }
    assert unregistered == {}


def test_every_registered_reason_is_written_somewhere():
    code = "\n".join(path.read_text() for path in _MODULES if path.name != "reasons.py")
    literals = set(re.findall(r"[\"']([a-z][a-z0-9_]*)[\"']", code))
    heads = set(re.findall(r"f[\"']([a-z][a-z0-9_]*_)\{", code))
    missing = [name for name in [*reasons.REJECTED, *reasons.NULLED] if name not in literals]
    assert missing == []
    assert {template.replace("<column>", "") for template in reasons.TEMPLATES} <= heads


def test_the_scores_ingest_reasons_are_registered():
    from ingest.scores import REASONS

    assert [name for name in REASONS if name not in reasons.REJECTED] == []


@pytest.mark.parametrize(
    ("reason", "kind", "registered"),
    [
        ("non_200", "rejected", True),
        ("non_200", "nulled", False),
        ("malformed_hc_pos", "rejected", True),
        ("non_finite_pr_val", "nulled", True),
        ("out_of_range_nutch_fetched", "nulled", True),
        ("malformed_", "rejected", False),
        ("Malformed_hc_pos", "rejected", False),
        ("something_new", "rejected", False),
    ],
)
def test_registered_reasons_and_templates(reason, kind, registered):
    assert reasons.is_registered(reason, kind) is registered


def test_the_books_refuse_an_unregistered_reason():
    report = IngestReport(Path("input.warc.gz"))
    report.reject("non_200", "byte 0", "x")
    with pytest.raises(LakeError, match="'something_new' is not registered"):
        report.reject("something_new", "byte 9", "x")
    with pytest.raises(LakeError, match="nulled reason 'non_200'"):
        report.null("non_200", "row 1", "x")
    assert report.rejected == {"non_200": 1}
