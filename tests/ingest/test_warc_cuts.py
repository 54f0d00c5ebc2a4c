"""The WARC reader under cuts, corrupt gzip members and garbage (issue 17, #2 #6 #7 #9).

The base is a real Common Crawl WARC excerpt (``tests/ingest/warc_cases.py``). Each case
compares every item read with what the intact file gives: the pages before a cut unchanged,
and the damage as a counted rejection.
"""

from __future__ import annotations

import dataclasses
import gzip
import zlib
from pathlib import Path

import pytest

from ingest.warc import read_captures
from ingest.warc_items import Break, Page, Rejection
from tests.ingest.warc_cases import (
    BASELINE,
    DATA,
    MEMBERS,
    METADATA_MEMBER,
    PAGE_MEMBER,
    Member,
    _flip,
    _pages_before,
    _pages_without,
    _write,
)


def test_the_base_file_is_what_the_cases_assume():
    assert len(MEMBERS) == 50
    kinds = [m.kind for m in MEMBERS]
    assert kinds.count("request") == 17 and kinds.count("metadata") == 16
    assert len(BASELINE) == 16 and all(isinstance(item, Page) for item in BASELINE)
    assert all(page.languages_cld2 and page.nulled == () for page in BASELINE)
    assert all(page.record_id in METADATA_MEMBER for page in BASELINE)


def _inflated_length(member: Member, cut: int) -> int:
    return len(zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(DATA[member.offset : cut]))


def _cut_inflating_to(member: Member, low: int, high: int) -> int:
    """A cut inside ``member`` whose compressed prefix inflates to more than ``low`` and fewer
    than ``high`` bytes (the last such cut: deflate emits nothing until its block table)."""
    for cut in range(member.end - 9, member.offset + 10, -1):
        if low < _inflated_length(member, cut) < high:
            return cut
    raise AssertionError(f"no cut inflating to ({low}, {high}) bytes")


def _cut_inside_warc_header(member: Member) -> int:
    for cut in range(member.offset + 10, member.end):
        if 0 < _inflated_length(member, cut) < member.header_length - 2:
            return cut
    raise AssertionError("no cut inside the WARC header")


def _cut_inside_block(member: Member) -> int:
    return _cut_inflating_to(member, member.header_length, len(member.text) - 4)


CUT_KINDS = {
    "gzip_header": lambda m: m.offset + 4,
    "warc_header": _cut_inside_warc_header,
    "block": _cut_inside_block,
    "gzip_trailer": lambda m: m.end - 4,
}


@pytest.mark.parametrize("kind", sorted(CUT_KINDS))
def test_a_cut_inside_any_record_is_a_counted_truncation(tmp_path: Path, kind: str):
    """For each of the 50 records (warcinfo, request, response, metadata)."""
    for index, member in enumerate(MEMBERS):
        cut = CUT_KINDS[kind](member)
        items = list(read_captures(_write(tmp_path, DATA[:cut])))
        *pages, last = items
        assert pages == _pages_before(index), (kind, index, member.kind)
        assert isinstance(last, Rejection), (kind, index, member.kind)
        assert (last.reason, last.offset, last.count) == ("truncated_record", member.offset, 1)
        if kind in ("block", "gzip_trailer"):  # the WARC header was read whole
            assert last.record_id == member.record_id


def test_a_cut_exactly_between_two_records_leaves_a_valid_shorter_file(tmp_path: Path):
    # Nothing in the bytes tells such a file from a complete one (WARC has no end marker): what
    # comes out is exactly what the records before the cut hold, and nothing is invented.
    for index, member in enumerate(MEMBERS):
        items = list(read_captures(_write(tmp_path, DATA[: member.offset])))
        assert items == _pages_before(index), index


@pytest.mark.parametrize("where", ["deflate_data", "gzip_magic"])
def test_a_corrupt_member_is_skipped_counted_and_reading_resumes(tmp_path: Path, where: str):
    for index, member in enumerate(MEMBERS):
        position = (member.offset + member.end) // 2 if where == "deflate_data" else member.offset
        items = list(read_captures(_write(tmp_path, _flip(DATA, position))))
        rejections = [item for item in items if isinstance(item, Rejection)]
        assert [item for item in items if isinstance(item, Page)] == _pages_without(index), index
        if index == len(MEMBERS) - 1:  # no member after it to resume at
            assert rejections == [] and isinstance(items[-1], Break)
            assert items[-1].offset == member.offset
            assert items[-1].message.endswith("no readable gzip member after it")
            continue
        (rejection,) = rejections
        assert (rejection.reason, rejection.offset, rejection.count) == (
            "corrupt_member",
            member.offset,
            1,
        ), index
        assert f"bytes {member.offset}..{member.end} skipped" in rejection.detail
        assert items == sorted(items, key=lambda item: item.offset)  # file order


def test_damaged_member_headers_passed_over_are_counted(tmp_path: Path):
    # Response member 5 is corrupt in its middle, and metadata member 6 right after its gzip
    # header (its first bytes no longer inflate to a WARC line): both are skipped in one go, and
    # the rejection counts the two members; reading resumes at member 7.
    assert (MEMBERS[5].kind, MEMBERS[6].kind) == ("response", "metadata")
    data = _flip(DATA, (MEMBERS[5].offset + MEMBERS[5].end) // 2)
    data = _flip(data, MEMBERS[6].offset + 12)
    items = list(read_captures(_write(tmp_path, data)))
    (rejection,) = [item for item in items if isinstance(item, Rejection)]
    assert (rejection.reason, rejection.offset, rejection.count) == (
        "corrupt_member",
        MEMBERS[5].offset,
        2,
    )
    assert [item for item in items if isinstance(item, Page)] == _pages_without(5)


def test_garbage_after_the_last_member_is_a_break(tmp_path: Path):
    items = list(read_captures(_write(tmp_path, DATA + b"this is not gzip data at all")))
    assert items[:-1] == BASELINE
    assert items[-1] == Break(
        len(DATA),
        f"byte {len(DATA)}: no gzip member header: b'this is '; no readable gzip member after it",
    )


def test_a_corrupt_whole_file_gzip_keeps_what_precedes_and_breaks(tmp_path: Path):
    # One gzip member for the whole file: no member to resume at after the damage. The records
    # inflated before the flipped byte come out unchanged; the one it falls in (or a later one,
    # inflated before zlib notices: its CRC is checked at the member's end) may not.
    text, starts = _uncompressed()
    whole = gzip.compress(text)
    flip = len(whole) // 2
    intact = list(read_captures(_write(tmp_path, whole, "whole.warc.gz")))
    assert [dataclasses.replace(page, offset=0) for page in BASELINE] == intact
    items = list(read_captures(_write(tmp_path, _flip(whole, flip))))
    assert isinstance(items[-1], Break) and items[-1].offset == 0
    assert "incorrect data check" in items[-1].message or "invalid" in items[-1].message
    clean = len(zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(whole[:flip])) - 1024
    before = [page for page in BASELINE if starts[PAGE_MEMBER[page.record_id] + 2] < clean]
    assert 0 < len(before) < 16
    assert items[: len(before)] == intact[: len(before)]
    assert all(isinstance(item, Page) for item in items[:-1]) and len(items) - 1 < 16


def _uncompressed() -> tuple[bytes, list[int]]:
    starts, position = [], 0
    for member in MEMBERS:
        starts.append(position)
        position += len(member.text)
    return b"".join(m.text for m in MEMBERS), starts


def test_an_uncompressed_file_cut_anywhere_counts_the_cut(tmp_path: Path):
    text, starts = _uncompressed()
    intact = list(read_captures(_write(tmp_path, text, "intact.warc")))
    by_member = {starts[PAGE_MEMBER[page.record_id]]: page for page in BASELINE}
    assert intact == [dataclasses.replace(by_member[page.offset], offset=page.offset)
                      for page in intact] and len(intact) == 16  # fmt: skip
    for index, member in enumerate(MEMBERS):
        start = starts[index]
        before = [page for page in intact if page.offset < start]
        if index and MEMBERS[index].kind == "metadata":
            before[-1] = dataclasses.replace(before[-1], languages_cld2=None)
        for cut in (start + member.header_length // 2, start + member.header_length + 3):
            items = list(read_captures(_write(tmp_path, text[:cut], "cut.warc")))
            assert items[:-1] == before, (index, cut - start)
            assert (items[-1].reason, items[-1].offset) == ("truncated_record", start)
        assert list(read_captures(_write(tmp_path, text[:start], "cut.warc"))) == before


def test_an_uncompressed_lying_content_length_resumes_at_the_next_record(tmp_path: Path):
    text, starts = _uncompressed()
    response = MEMBERS[5]
    longer = response.text.replace(
        b"Content-Length: %d" % response.content_length,
        b"Content-Length: %d" % (response.content_length + 500),
    )
    data = text[: starts[5]] + longer + text[starts[6] :]
    items = list(read_captures(_write(tmp_path, data, "lying.warc")))
    (rejection,) = [item for item in items if isinstance(item, Rejection)]
    assert (rejection.reason, rejection.offset) == ("bad_content_length", starts[5])
    pages = [item for item in items if isinstance(item, Page)]
    assert [page.record_id for page in pages] == [
        page.record_id for page in BASELINE if PAGE_MEMBER[page.record_id] != 5
    ]
