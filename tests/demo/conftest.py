"""Readers of the demo crawl's files shared by the demo crawl's tests (as fixtures).

``annotation_folder(crawl, level, name)`` is the folder of one crawl's GneissWeb annotations
(``urls`` or ``hosts``); ``url_rows(crawl, name)`` its URL-level rows with the SURT host of each;
``expected_surtkey(url)`` Common Crawl's SURT key of a URL; ``make_page(rng, lang, host, …)``
an HTML page of ``demo.html.render_page`` around paragraphs of common words of ``lang``
(returns the title, the paragraphs and the page), for the WARC writer's and the renderer's tests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from demo.html import render_page
from ingest.hosts import surt_host_name
from tests.fixtures.crawls import Crawl


def _annotation_folder(crawl: Crawl, level: str, name: str) -> Path:
    return crawl.root / "gneissweb-annotations" / level / f"crawl={name}"


def _url_rows(crawl: Crawl, name: str) -> pd.DataFrame:
    """A crawl's URL-level annotation rows, with the SURT host of each."""
    rows = pq.read_table(_annotation_folder(crawl, "urls", name)).to_pandas()
    rows["surt_host_name"] = rows["url_surtkey"].str.split(")").str[0]
    return rows


def _expected_surtkey(url: str) -> str:
    """Common Crawl's SURT key of a URL: SURT host (no ``www.``), ``)``, lower-cased path."""
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return f"{surt_host_name(parts.hostname)}){path.lower()}"


@pytest.fixture(scope="session")
def annotation_folder() -> Callable[[Crawl, str, str], Path]:
    """The folder of a crawl's annotations: ``annotation_folder(crawl, "urls", name)``."""
    return _annotation_folder


@pytest.fixture(scope="session")
def url_rows() -> Callable[[Crawl, str], pd.DataFrame]:
    """A crawl's URL-level annotation rows with their SURT host: ``url_rows(crawl, name)``."""
    return _url_rows


@pytest.fixture(scope="session")
def expected_surtkey() -> Callable[[str], str]:
    """Common Crawl's SURT key of a URL: ``expected_surtkey(url)``."""
    return _expected_surtkey


_WORDS = {
    "en": "the garden river morning people history music city water window house light "
    "market station bridge teacher winter summer letter friend table story forest",
    "de": "der Garten Fluss Morgen Menschen Geschichte Musik Stadt Wasser Fenster Haus Licht "
    "Markt Bahnhof Brücke Lehrer Winter Sommer Brief Freund Tisch Wald",
    "fr": "le jardin rivière matin gens histoire musique ville eau fenêtre maison lumière "
    "marché gare pont professeur hiver été lettre ami table forêt",
    "ru": "сад река утро люди история музыка город вода окно дом свет рынок вокзал мост "
    "учитель зима лето письмо друг стол лес",
    "pt": "o jardim rio manhã pessoas história música cidade água janela casa luz mercado "
    "estação ponte professor inverno verão carta amigo mesa floresta",
    "es": "el jardín río mañana gente historia música ciudad agua ventana casa luz mercado "
    "estación puente maestro invierno verano carta amigo mesa bosque",
    "ja": "庭 川 朝 人々 歴史 音楽 都市 水 窓 家 光 市場 駅 橋 先生 冬 夏 手紙 友達 机 森",
    "zh": "花园 河流 早晨 人们 历史 音乐 城市 水 窗户 房子 光 市场 车站 桥 老师 冬天 夏天 "
    "信 朋友 桌子 森林",
}


def _paragraphs(rng: np.random.Generator, lang: str, n: int, words: int) -> list[str]:
    vocab = _WORDS[lang].split()
    sep, stop = ("", "。") if lang in ("ja", "zh") else (" ", ".")
    out = []
    for _ in range(n):
        sentences = []
        for _ in range(max(1, words // 12)):
            sentence = sep.join(vocab[i] for i in rng.integers(0, len(vocab), 12))
            sentences.append(sentence[:1].upper() + sentence[1:] + stop)
        out.append(" ".join(sentences) if sep else "".join(sentences))
    return out


def _page(
    rng: np.random.Generator,
    lang: str,
    host: str,
    *,
    n: int = 6,
    words: int = 80,
    charset: str = "utf-8",
    declare: bool = True,
) -> tuple[str, list[str], str]:
    vocab = _WORDS[lang].split()
    title = f"{vocab[1]} {vocab[5]} {vocab[9]}"
    paras = _paragraphs(rng, lang, n, words)
    html = render_page(
        title=title,
        paragraphs=paras,
        lang=lang,
        host=host,
        rng=rng,
        charset=charset,
        declare_charset=declare,
    )
    return title, paras, html


@pytest.fixture(scope="session")
def make_page() -> Callable[..., tuple[str, list[str], str]]:
    """A rendered page: ``make_page(rng, lang, host, n=6, words=80, charset=, declare=)``."""
    return _page
