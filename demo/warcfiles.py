"""One WARC file of the demo sample: its pages rendered and written, plus what real crawls hold.

Besides the HTML 200 pages of the sample, each file carries a few captures a real Common Crawl
WARC file has and an ingest must skip or reject: non-HTML payloads, non-200 responses; the first
file also holds a revisit record. Some Russian and Japanese pages are encoded in their legacy
charsets (declared in the HTTP header, only in the page, or not at all).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from demo.crawls import record_ids
from demo.html import render_page
from demo.text import compose_document, expected_document_words, vocabularies
from demo.warc_fields import Capture
from demo.warcgen import WarcFileWriter

__all__ = ["WarcJob", "summarise", "warc_file_name", "write_warc_job"]

_LEGACY_CHARSETS = {"ru": "windows-1251", "ja": "shift_jis", "zh": "gb18030"}
_OTHER_PAYLOADS = (
    (
        "application/pdf",
        b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n%%EOF\n",
    ),
    ("image/jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"),
    ("text/plain", b"User-agent: *\nDisallow: /private/\n"),
)


@dataclass
class WarcJob:
    """Everything one worker needs to write one WARC file (picklable)."""

    path: Path
    crawl: str
    seed: tuple[int, int]
    file_index: int
    urls: list[str]
    record_ids: list[str]
    fetched_at: list[datetime]
    languages: list[str]
    host_languages: list[str]
    true_scores: np.ndarray


def warc_file_name(crawl: str, index: int) -> str:
    """A Common Crawl-style WARC file name (``CC-MAIN-<timestamp>-<timestamp>-<nnnnn>.warc.gz``)."""
    stamp = f"{crawl[8:12]}0220{index:02d}0000"
    return f"CC-MAIN-{stamp}-{stamp}-{index:05d}.warc.gz"


def _cld2(rng: np.random.Generator, language: str) -> list[tuple[str, float]]:
    main = float(np.round(rng.uniform(86, 99), 0))
    if language == "en":
        return [("en", main)]
    return [(language, main), ("en", float(np.round(min(100 - main, rng.uniform(1, 9)), 0)))]


def write_warc_job(job: WarcJob) -> dict:
    """Render and write one WARC file; return what it holds, for truth.json."""
    rng = np.random.default_rng(list(job.seed))
    vocab = vocabularies()
    lengths = expected_document_words(rng, len(job.urls))
    counts: Counter[str] = Counter()
    charsets: Counter[str] = Counter()
    info = {
        "software": "hostaware-synth (Apache Nutch 1.19 compatible layout)",
        "isPartOf": job.crawl,
        "operator": "Common Crawl Admin (info@commoncrawl.org)",
        "description": "hostaware demo crawl: synthetic pages with planted host quality",
        "robots": "checked via crawler-commons 1.4 (https://github.com/crawler-commons/crawler-commons)",
        "format": "WARC File Format 1.1",
        "conformsTo": "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
    }
    html_offsets: list[int] = []
    with WarcFileWriter(job.path, warcinfo=info, rng=rng, crawl=job.crawl) as writer:
        first: Capture | None = None
        extras_at = set(
            rng.choice(len(job.urls), size=min(len(job.urls), 6), replace=False).tolist()
        )
        for index, url in enumerate(job.urls):
            language = job.languages[index]
            title, paragraphs = compose_document(
                rng, vocab[language], job.true_scores[index], int(lengths[index])
            )
            charset, declare_header, declare_meta = "utf-8", True, True
            legacy = _LEGACY_CHARSETS.get(language)
            draw = rng.random()
            if legacy and draw < 0.3:
                charset = legacy
                declare_header = draw < 0.2  # 2/3 in the HTTP header, 1/3 only in <meta>
                declare_meta = not (legacy == "gb18030" and draw >= 0.25)  # a few undeclared
            html = render_page(
                title=title,
                paragraphs=paragraphs,
                lang=language,
                host=url.split("/")[2],
                rng=rng,
                charset=charset,
                declare_charset=declare_meta,
            )
            capture = Capture(
                url=url,
                fetched_at=job.fetched_at[index],
                record_id=job.record_ids[index],
                charset=charset if declare_header else None,
                body=html.encode(charset, errors="xmlcharrefreplace"),
                languages_cld2=_cld2(rng, language),
            )
            html_offsets.append(writer.write_capture(capture))
            counts["html_200"] += 1
            charsets[
                f"{charset}{'' if declare_header else ' (not in HTTP header)'}"
                f"{'' if declare_meta else ' (undeclared)'}"
            ] += 1
            first = first or capture
            if index in extras_at:
                counts.update(_write_extra(writer, rng, capture, index))
        if first is not None and job.file_index == 0:
            revisit = Capture(
                url=first.url,
                fetched_at=first.fetched_at + timedelta(days=1),
                record_id=_record_id(rng),
                body=first.body,
                charset=first.charset,
            )
            writer.write_revisit(revisit, refers_to=first)
            counts["revisit"] += 1
    return {
        "file": job.path.name,
        "records_by_kind": dict(counts),
        "charsets": dict(charsets),
        "bytes": job.path.stat().st_size,
    }


def _record_id(rng: np.random.Generator) -> str:
    return record_ids(rng, 1)[0]


def _write_extra(
    writer: WarcFileWriter, rng: np.random.Generator, near: Capture, serial: int
) -> Counter[str]:
    """One capture that is not an HTML 200 page: a non-HTML payload or an error/redirect."""
    base = near.url.rsplit("/", 1)[0]
    kind = int(rng.integers(0, 6))
    when = near.fetched_at + timedelta(seconds=int(rng.integers(1, 600)))
    if kind < 3:
        mime, body = _OTHER_PAYLOADS[kind]
        extension = {"application/pdf": "pdf", "image/jpeg": "jpg", "text/plain": "txt"}[mime]
        writer.write_capture(
            Capture(
                url=f"{base}/file-{serial}.{extension}",
                fetched_at=when,
                record_id=_record_id(rng),
                content_type=mime,
                charset=None,
                body=body,
            )
        )
        return Counter({"non_html": 1})
    status = (404, 301, 500)[kind - 3]
    body = b"" if status == 301 else f"<html><body><h1>{status}</h1></body></html>".encode()
    writer.write_capture(
        Capture(
            url=f"{base}/missing-{serial}.html",
            fetched_at=when,
            record_id=_record_id(rng),
            status=status,
            body=body,
            location=f"{base}/" if status == 301 else None,
        )
    )
    return Counter({"non_200": 1})


def summarise(results: list[dict]) -> dict:
    """Totals over the files, for truth.json."""
    kinds: Counter[str] = Counter()
    charsets: Counter[str] = Counter()
    for result in results:
        kinds.update(result["records_by_kind"])
        charsets.update(result["charsets"])
    return {
        "files": results,
        "captures_by_kind": dict(kinds),
        "html_charsets": dict(charsets),
        "total_bytes": sum(result["bytes"] for result in results),
    }
