"""Tests of the synthetic HTML renderer (``demo.html``): main-text extraction, page structure,
sizes and variety, legacy charsets."""

from __future__ import annotations

import re
import zlib
from collections import Counter

import numpy as np
import pytest
from resiliparse.extract.html2text import extract_plain_text
from resiliparse.parse.html import HTMLTree

from demo.html import LANGUAGES, render_page


def _word_stats(paragraphs: list[str], extracted: str) -> tuple[float, float]:
    para_words = Counter(" ".join(paragraphs).split())
    got = Counter(extracted.split())
    recovered = sum(min(n, got[w]) for w, n in para_words.items()) / sum(para_words.values())
    extra = sum(max(0, n - para_words[w]) for w, n in got.items()) / max(1, sum(got.values()))
    return recovered, extra


@pytest.mark.parametrize(
    ("lang", "n", "words"),
    [
        ("en", 6, 80),
        ("de", 3, 60),
        ("fr", 10, 120),
        ("ru", 4, 90),
        ("pt", 2, 70),
        ("es", 8, 40),
        ("en", 2, 40),
    ],
)
def test_main_text_extraction(lang: str, n: int, words: int, make_page) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{lang}-{n}-{words}".encode()))
    for k in range(4):
        _, paras, html = make_page(rng, lang, f"site{k}-{lang}.example.net", n=n, words=words)
        text = extract_plain_text(HTMLTree.parse(html), main_content=True)
        recovered, extra = _word_stats(paras, text)
        assert recovered >= 0.9, (lang, k, recovered)
        assert extra < 0.15, (lang, k, extra, text[:300])
        for needle in ("siteAnalytics", "beacon", "track(", "cookie", "@context"):
            assert needle not in text


def test_page_structure_sizes_and_variety(make_page) -> None:
    rng = np.random.default_rng(5)
    sizes, skeletons = [], set()
    for k in range(40):
        lang = LANGUAGES[k % len(LANGUAGES)]
        title, paras, html = make_page(rng, lang, f"www.host{k}.example.com")
        sizes.append(len(html.encode("utf-8")))
        assert html.startswith("<!DOCTYPE html>")
        assert f'<html lang="{lang}">' in html
        assert "charset=" in html.split("</head>", 1)[0]
        assert html.count("<style>") == 1 and "<script>" in html
        nav = re.search(r"<nav class=\"[^\"]+\" aria-label=\"Main\">(.*?)</nav>", html, re.S)
        assert nav is not None and 5 <= nav.group(1).count("<a ") <= 12
        assert "<main" in html and "<article" in html and "<footer" in html
        assert f'<h1 class="entry-title">{title}</h1>' in html
        assert all(f"<p>{p}</p>" in html for p in paras)
        assert "cookie-banner" in html and "/privacy" in html and "&copy;" in html
        skeletons.add(
            re.sub(r">[^<]*<", "><", re.sub(r"<style>.*?</style>", "", html, flags=re.S)).split(
                "<main"
            )[0][-300:]
        )
    assert len(skeletons) >= 4  # several layouts
    # As heavy as real pages: Common Crawl's responses run 8-108 KB (../shared/data/real).
    assert 20_000 <= float(np.median(sizes)) <= 80_000
    # Same inputs, same string; the site template is a function of the host.
    a = render_page(
        title="T", paragraphs=["x y"], lang="en", host="h.com", rng=np.random.default_rng(1)
    )
    b = render_page(
        title="T", paragraphs=["x y"], lang="en", host="h.com", rng=np.random.default_rng(1)
    )
    assert a == b
    escaped = render_page(
        title="A <b> & c",
        paragraphs=["1 < 2 & 3 > 2"],
        lang="xx",
        host="h.com",
        rng=np.random.default_rng(1),
        declare_charset=False,
    )
    assert "<p>1 &lt; 2 &amp; 3 &gt; 2</p>" in escaped and "charset" not in escaped


@pytest.mark.parametrize(
    ("lang", "legacy"),
    [
        ("ru", "windows-1251"),
        ("ja", "shift_jis"),
        ("zh", "gb2312"),
        ("de", "windows-1252"),
        ("fr", "windows-1252"),
        ("pt", "iso-8859-1"),
        ("es", "iso-8859-1"),
        ("en", "ascii"),
    ],
)
def test_boilerplate_encodes_in_legacy_charsets(lang: str, legacy: str) -> None:
    rng = np.random.default_rng(0)
    for k in range(12):  # several hosts: all layouts and menu sizes
        html = render_page(
            title="t", paragraphs=["p"], lang=lang, host=f"h{k}.example", rng=rng, charset=legacy
        )
        html.encode(legacy)  # strict: raises when a boilerplate word does not fit
