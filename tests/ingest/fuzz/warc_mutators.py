"""Mutations of WARC/WET files, each with what an honest reader must still find in the result.

A base file is split into units (gzip members, or records of a plain file, see
:mod:`tests.fuzz.warcfile`). A mutation builds a new file unit by unit and says, per unit,
whether it is an untouched copy of a base unit (its captures must still be read, and its pages
written unless they are duplicates), damaged (the reader must count what it skipped), or
neutral (changed in a way no reader can be held to).
"""

from __future__ import annotations

import gzip
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.ingest.fuzz.warcfile import CAPTURE_TYPES, Unit, inflate, parse_record, split


@dataclass
class Base:
    """A well-formed input file and what a clean ingest of it wrote, by unit."""

    name: str
    data: bytes
    suffix: str  # .warc.gz, .warc, .warc.wet.gz
    units: list[Unit] = field(default_factory=list)
    gzipped: bool = True
    written: dict[int, list[str]] = field(default_factory=dict)  # unit -> doc_ids written

    def __post_init__(self) -> None:
        self.units, self.gzipped = split(self.data)

    def offsets(self) -> list[int]:
        """The byte offset of each unit."""
        found, position = [], 0
        for unit in self.units:
            found.append(position)
            position += len(unit.data)
        return found


@dataclass
class Piece:
    """One unit of a mutated file."""

    data: bytes
    origin: tuple[str, int] | None = None  # (base name, unit) of an untouched copy
    damaged: bool = False  # the reader must count a rejection for it
    exempt_next: bool = False  # the next unit may be lost with this one (it may swallow it)


@dataclass
class Mutated:
    """A mutated file and its expectations."""

    mutation: str
    pieces: list[Piece]
    gzipped: bool
    counted: bool = False  # something in it must be counted (rejected or nulled)

    @property
    def data(self) -> bytes:
        return b"".join(piece.data for piece in self.pieces)


def _gz(content: bytes) -> bytes:
    return gzip.compress(content, mtime=0)


def _copy(base: Base, index: int) -> Piece:
    return Piece(base.units[index].data, (base.name, index))


def _wrap(base: Base, content: bytes, damaged: bool = False) -> Piece:
    return Piece(_gz(content) if base.gzipped else content, None, damaged)


def _copies(base: Base) -> list[Piece]:
    return [_copy(base, index) for index in range(len(base.units))]


def _pick(rng: random.Random, base: Base, test: Callable[[Unit, int], bool]) -> int | None:
    choices = [index for index, unit in enumerate(base.units) if test(unit, index)]
    return rng.choice(choices) if choices else None


def _written(base: Base) -> Callable[[Unit, int], bool]:
    return lambda unit, index: bool(base.written.get(index))


def _with_header(content: bytes, name: str, value: str | None) -> bytes:
    """The record with one WARC header field replaced (or removed when ``value`` is None)."""
    end = content.find(b"\r\n\r\n")
    lines = content[:end].split(b"\r\n")
    key = name.lower().encode()
    kept = [line for line in lines if not line.lower().startswith(key + b":")]
    if value is not None:
        kept.insert(1, f"{name}: {value}".encode())
    return b"\r\n".join(kept) + content[end:]


def _with_block(content: bytes, block: bytes) -> bytes:
    """The record with another block (and its true Content-Length)."""
    record = parse_record(content)
    assert record is not None
    header = _with_header(content[: record.header_end], "Content-Length", str(len(block)))
    return header + block + b"\r\n\r\n"


# ----------------------------------------------------------------------- cuts


def _region(record, kind: str) -> tuple[int, int]:
    """[low, high) of inflated bytes where a cut of this kind falls."""
    block_end = record.header_end + record.content_length
    if kind == "warc_header":
        return 1, record.header_end - 1
    if kind == "http_header" and record.http_header_end:
        return record.header_end + 1, record.http_header_end - 1
    body_start = record.http_header_end or record.header_end
    return body_start + 1, block_end - 1


def cut(rng: random.Random, base: Base, kind: str) -> Mutated:
    """Truncate the file inside one record: in its WARC header, HTTP header or body."""
    want_http = kind == "http_header"
    index = _pick(
        rng,
        base,
        lambda unit, _: (
            unit.record is not None and (not want_http or unit.record.http_header_end is not None)
        ),
    )
    if index is None:
        return boundary_cut(rng, base)
    unit = base.units[index]
    low, high = _region(unit.record, kind)
    pieces = [_copy(base, i) for i in range(index)]
    if not base.gzipped:
        position = rng.randint(low, max(low, high))
        pieces.append(Piece(unit.data[:position], damaged=True))
        return Mutated(f"cut_in_{kind} of unit {index} at byte {position}", pieces, False, True)
    # the compressed prefixes whose inflated length falls in the region
    inflater, produced, fits = __import__("zlib").decompressobj(31), 0, []
    for position in range(1, len(unit.data)):
        produced += len(inflater.decompress(unit.data[position - 1 : position]))
        if low <= produced < high:
            fits.append(position)
    position = rng.choice(fits) if fits else rng.randint(1, len(unit.data) - 1)
    pieces.append(Piece(unit.data[:position], damaged=True))
    return Mutated(f"cut_in_{kind} of member {index} at byte {position}", pieces, True, True)


def boundary_cut(rng: random.Random, base: Base) -> Mutated:
    """Truncate the file exactly between two units: a shorter, well-formed file."""
    index = rng.randint(1, len(base.units))
    return Mutated(f"cut_between_units before unit {index}", _copies(base)[:index], base.gzipped)


def trailer_cut(rng: random.Random, base: Base) -> Mutated:
    """Truncate a gzip member inside its 8-byte trailer (its record's bytes all inflate)."""
    if not base.gzipped:
        return boundary_cut(rng, base)
    index = rng.randrange(len(base.units))
    unit = base.units[index]
    position = len(unit.data) - rng.randint(1, 8)
    pieces = [_copy(base, i) for i in range(index)] + [Piece(unit.data[:position], damaged=True)]
    return Mutated(f"cut_in_gzip_trailer of member {index} at byte {position}", pieces, True, True)


# ----------------------------------------------------------------------- bytes


def bit_flips(rng: random.Random, base: Base) -> Mutated:
    """Flip one to three bits of one unit."""
    pieces = _copies(base)
    index = rng.randrange(len(pieces))
    data = bytearray(pieces[index].data)
    flipped = []
    for _ in range(rng.randint(1, 3)):
        position = rng.randrange(len(data))
        bit = rng.randrange(8)
        data[position] ^= 1 << bit
        flipped.append(f"{position}.{bit}")
    original = base.units[index]
    changed = bytes(data)
    if base.gzipped:
        content, clean, used = inflate(changed)
        if clean and used == len(changed) and content == original.content:
            piece = Piece(changed, (base.name, index))  # only header bytes such as MTIME
        elif content == original.content or (clean and parse_record(content) is not None):
            piece = Piece(changed)  # the record is whole: nothing the reader must notice
        else:
            piece = Piece(changed, damaged=True, exempt_next=True)
    else:
        record = parse_record(changed)
        same = record is not None and (
            record.content_length,
            record.warc_type,
        ) == (original.record.content_length, original.record.warc_type)
        piece = Piece(changed) if same else Piece(changed, damaged=True, exempt_next=True)
    pieces[index] = piece
    return Mutated(
        f"bit_flips in unit {index} at {', '.join(flipped)}", pieces, base.gzipped, piece.damaged
    )


def garbage_between(rng: random.Random, base: Base) -> Mutated:
    """Random bytes (not gzip, not WARC) between two units."""
    pieces = _copies(base)
    index = rng.randint(0, len(pieces))
    junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 400)))
    junk = junk.replace(b"\x1f\x8b", b"\x1f\x00").replace(b"WARC/", b"WARK/")
    pieces.insert(index, Piece(junk, damaged=True))
    return Mutated(f"garbage_bytes ({len(junk)}) before unit {index}", pieces, base.gzipped, True)


def garbage_member(rng: random.Random, base: Base) -> Mutated:
    """A well-formed gzip member (or text) that holds no WARC record."""
    pieces = _copies(base)
    index = rng.randint(0, len(pieces))
    text = rng.choice(
        [b"hello world\n", b"<html>not a record</html>", b"\x00" * 64, b"WARC/1.0\r\n\r\n"]
    )
    pieces.insert(index, _wrap(base, text, damaged=True))
    return Mutated(f"garbage_member {text[:12]!r} before unit {index}", pieces, base.gzipped, True)


# ----------------------------------------------------------------------- units


def duplicate(rng: random.Random, base: Base) -> Mutated:
    """One unit twice: right after itself, or at the end."""
    pieces = _copies(base)
    index = rng.randrange(len(pieces))
    where = rng.choice([index + 1, len(pieces)])
    pieces.insert(where, _copy(base, index))
    return Mutated(f"duplicate unit {index} at {where}", pieces, base.gzipped)


def reorder(rng: random.Random, base: Base) -> Mutated:
    """Two units swapped."""
    pieces = _copies(base)
    first, second = rng.randrange(len(pieces)), rng.randrange(len(pieces))
    pieces[first], pieces[second] = pieces[second], pieces[first]
    return Mutated(f"swap units {first} and {second}", pieces, base.gzipped)


def drop(rng: random.Random, base: Base) -> Mutated:
    """One unit removed (a warcinfo, a request, a metadata record, a response)."""
    pieces = _copies(base)
    index = rng.randrange(len(pieces))
    del pieces[index]
    return Mutated(f"drop unit {index}", pieces, base.gzipped)


def splice(rng: random.Random, base: Base, others: list[Base]) -> Mutated:
    """A unit of another file inserted (its captures count as this file's)."""
    candidates = [candidate for candidate in others if candidate.gzipped == base.gzipped]
    if not candidates:  # the only file of its framing (the plain base): nothing to splice from
        return duplicate(rng, base)
    other = rng.choice(candidates)
    pieces = _copies(base)
    taken = rng.randrange(len(other.units))
    where = rng.randint(0, len(pieces))
    pieces.insert(where, _copy(other, taken))
    return Mutated(f"splice unit {taken} of {other.name} at {where}", pieces, base.gzipped)


# ----------------------------------------------------------------------- records


def lying_content_length(rng: random.Random, base: Base) -> Mutated:
    """A record whose Content-Length says more or less than its block holds."""
    index = _pick(rng, base, lambda unit, _: unit.record is not None)
    if index is None:
        return drop(rng, base)
    unit = base.units[index]
    length = unit.record.content_length
    lie = rng.choice(
        [
            *(length + 1, length + 200, length * 2 + 10, 2**63, max(length - 1, 0), length // 2),
            *(0, "-5", "abc", "", "1e3"),
        ]
    )
    content = _with_header(unit.content, "Content-Length", str(lie))
    more = not isinstance(lie, int) or lie > length
    pieces = _copies(base)
    pieces[index] = _wrap(base, content, damaged=more)
    pieces[index].exempt_next = True
    return Mutated(
        f"content_length {length} -> {lie!r} in unit {index}", pieces, base.gzipped, more
    )


def unknown_type(rng: random.Random, base: Base) -> Mutated:
    """A record of a WARC-Type the standard does not define."""
    index = _pick(rng, base, lambda unit, _: unit.record is not None)
    if index is None:
        return drop(rng, base)
    content = _with_header(base.units[index].content, "WARC-Type", "bogus-type")
    pieces = _copies(base)
    pieces[index] = _wrap(base, content, damaged=True)
    return Mutated(f"unknown WARC-Type in unit {index}", pieces, base.gzipped, True)


_BAD_DATES = [
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "2024-13-45T00:00:00Z",
    "garbage",
    "1e400",
]
_BAD_URLS = [
    "http://exa mple.com/",
    "http://b..a/",
    "http://%41.com/",
    "http:///nohost",
    "mailto:someone",
    "http://" + "a" * 300 + ".com/",
]


_CODING_LINE = re.compile(rb"(?im)^(content-encoding|transfer-encoding):[^\r\n]*\r?\n")


def recoded_payload(rng: random.Random, base: Base) -> Mutated:
    """A written response whose payload is coded again, or whose headers name codings the
    stored payload does not carry (as Common Crawl wrote them before CC-MAIN-2018-34).

    The page must still be written, with the same id: the reader undoes br, zstd and stacked
    gzip, and takes a payload that carries none of the codings named as stored (counted).
    """
    import brotli
    import zstandard

    def plain(unit: Unit, index: int) -> bool:
        record = unit.record
        if not base.written.get(index) or record is None or not record.http_header_end:
            return False
        return not _CODING_LINE.search(unit.content[record.header_end : record.http_header_end])

    index = _pick(rng, base, plain)
    if index is None:
        return drop(rng, base)
    unit = base.units[index]
    record = unit.record
    http_head = unit.content[record.header_end : record.http_header_end]
    body = unit.content[record.http_header_end : record.header_end + record.content_length]
    choice = rng.choice(["old_style", "br", "zstd", "gzip, gzip", "br, gzip", "deflate"])
    coders = {
        "br": brotli.compress,
        "zstd": lambda data: zstandard.ZstdCompressor().compress(data),
        "gzip, gzip": lambda data: gzip.compress(gzip.compress(data, mtime=0), mtime=0),
        "br, gzip": lambda data: gzip.compress(brotli.compress(data), mtime=0),
        "deflate": __import__("zlib").compress,
    }
    if choice == "old_style":
        added = b"Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"
    else:
        added = f"Content-Encoding: {choice}\r\n".encode()
        body = coders[choice](body)
    end = http_head.rstrip(b"\r\n")
    http_head = end + b"\r\n" + added + b"\r\n"
    pieces = _copies(base)
    pieces[index] = _wrap(base, _with_block(unit.content, http_head + body))
    pieces[index].origin = (base.name, index)  # its page must be written all the same
    return Mutated(
        f"recoded payload ({choice}) in unit {index}", pieces, base.gzipped, choice == "old_style"
    )


def bad_language(rng: random.Random, base: Base) -> Mutated:
    """A written WET record whose WARC-Identified-Content-Language is no language code."""
    index = _pick(
        rng,
        base,
        lambda unit, i: (
            bool(base.written.get(i))
            and unit.record is not None
            and unit.record.warc_type == "conversion"
        ),
    )
    if index is None:
        return bad_field(rng, base)
    value = rng.choice(["english", "e n", "spa;q=1", "12", "spa,<b>", "\u00e9sp"])
    content = _with_header(base.units[index].content, "WARC-Identified-Content-Language", value)
    pieces = _copies(base)
    pieces[index] = _wrap(base, content)
    pieces[index].origin = (base.name, index)  # the page is kept, its language nulled
    return Mutated(f"bad language {value!r} in unit {index}", pieces, base.gzipped, True)


def bad_field(rng: random.Random, base: Base) -> Mutated:
    """A written page with an empty record id, an impossible date or a URL without a host."""
    index = _pick(rng, base, _written(base))
    if index is None:
        return drop(rng, base)
    content = base.units[index].content
    choice = rng.choice(["record_id", "date", "url"])
    if choice == "record_id":
        value = rng.choice(
            ["", "<>", "   ", "<urn:uuid:a\x00b>", "urn:uuid:no-brackets", "<urn:uuid:a b>"]
        )
        content = _with_header(content, "WARC-Record-ID", value)
        if base.units[index].record.warc_type == "conversion":
            content = _with_header(content, "WARC-Refers-To", value)
    elif choice == "date":
        value = rng.choice(_BAD_DATES)
        content = _with_header(content, "WARC-Date", value)
    else:
        value = rng.choice(_BAD_URLS)
        content = _with_header(content, "WARC-Target-URI", value)
    pieces = _copies(base)
    pieces[index] = _wrap(base, content, damaged=True)
    return Mutated(f"bad {choice} {value!r} in unit {index}", pieces, base.gzipped, True)


def http_blank_first_line(rng: random.Random, base: Base) -> Mutated:
    """A response whose HTTP block starts with an empty line (then the status line)."""
    index = _pick(
        rng, base, lambda unit, _: unit.record is not None and unit.record.http_header_end
    )
    if index is None:
        return drop(rng, base)
    unit = base.units[index]
    block = unit.content[
        unit.record.header_end : unit.record.header_end + unit.record.content_length
    ]
    prefix = rng.choice([b"\r\n", b"\n", b"\r\n\r\n"])
    pieces = _copies(base)
    pieces[index] = _wrap(base, _with_block(unit.content, prefix + block))
    return Mutated(f"http block starts with {prefix!r} in unit {index}", pieces, base.gzipped)


_BAD_CLD2 = [
    b'{"reliable":true,"languages":[{"code":5,"code-iso-639-3":"x","text-covered":0.9}]}',
    b'{"reliable":true,"languages":[{"code":null,"text-covered":0.9}]}',
    b'{"reliable":true,"languages":[{"code":"en","text-covered":NaN}]}',
    b'{"reliable":true,"languages":[{"code":"en","text-covered":"x"}]}',
    b'{"reliable":true,"languages":[{"code":"en","text-covered":1e400}]}',
    b'{"reliable":true,"languages":[{"code":"en","text-covered":-1}]}',
    b'{"reliable":true,"languages":[{"code":"en","text-covered":7}]}',
    b'{"reliable":true,"languages":[{"code":"e n\\u0000","text-covered":0.5}]}',
    b'{"reliable":true,"languages":',
]


def bad_cld2(rng: random.Random, base: Base) -> Mutated:
    """A metadata record whose languages-cld2 field is of the wrong type or out of range."""
    index = _pick(
        rng,
        base,
        lambda unit, _: (
            unit.record is not None
            and unit.record.warc_type == "metadata"
            and b"languages-cld2:" in unit.content
        ),
    )
    if index is None:
        return bad_field(rng, base)
    unit = base.units[index]
    block = unit.content[
        unit.record.header_end : unit.record.header_end + unit.record.content_length
    ]
    value = rng.choice(_BAD_CLD2)
    block = re.sub(rb"languages-cld2: [^\r\n]*", lambda _: b"languages-cld2: " + value, block)
    pieces = _copies(base)
    pieces[index] = _wrap(base, _with_block(unit.content, block), damaged=True)
    return Mutated(f"bad languages-cld2 {value[:60]!r} in unit {index}", pieces, base.gzipped, True)


def not_a_warc(rng: random.Random, base: Base) -> Mutated:
    """A file that is no WARC at all: random bytes, text, empty, or gzip of text."""
    choice = rng.choice(["random", "text", "empty", "gzip_text"])
    data = {
        "random": bytes(rng.randrange(256) for _ in range(rng.randint(1, 2000))),
        "text": b"this is not a warc file\n" * rng.randint(1, 50),
        "empty": b"",
        "gzip_text": _gz(b"plain text, gzipped\n" * 20),
    }[choice]
    return Mutated(f"not_a_warc ({choice})", [Piece(data, damaged=True)], base.gzipped, True)


def identity(rng: random.Random, base: Base) -> Mutated:
    """The base file unchanged (the oracle's own sanity check)."""
    return Mutated("identity", _copies(base), base.gzipped)


MUTATIONS: dict[str, Callable[..., Mutated]] = {
    "identity": identity,
    "cut_between_units": boundary_cut,
    "cut_in_warc_header": lambda rng, base: cut(rng, base, "warc_header"),
    "cut_in_http_header": lambda rng, base: cut(rng, base, "http_header"),
    "cut_in_body": lambda rng, base: cut(rng, base, "body"),
    "cut_in_gzip_trailer": trailer_cut,
    "bit_flips": bit_flips,
    "garbage_bytes": garbage_between,
    "garbage_member": garbage_member,
    "duplicate": duplicate,
    "reorder": reorder,
    "drop": drop,
    "splice": splice,
    "lying_content_length": lying_content_length,
    "unknown_warc_type": unknown_type,
    "bad_field": bad_field,
    "http_blank_first_line": http_blank_first_line,
    "bad_cld2": bad_cld2,
    "not_a_warc": not_a_warc,
    "recoded_payload": recoded_payload,
    "bad_language": bad_language,
}


def mutate(rng: random.Random, base: Base, others: list[Base], kind: str) -> Mutated:
    """Apply the mutation ``kind`` to ``base``."""
    if kind == "splice":
        return splice(rng, base, others)
    return MUTATIONS[kind](rng, base)


def expected(mutated: Mutated, bases: dict[str, Base]) -> tuple[set[str], int]:
    """(doc_ids that must be in the lake, the fewest captures the reader must count as read).

    A copy of a base unit counts when a reader can reach it: always in a file gzipped per
    record (it resynchronises at the next member), only before the first damage in a plain file;
    never right after a unit that may have swallowed it.
    """
    must: set[str] = set()
    least = 0
    damaged_before = False
    exempt = False
    pieces = mutated.pieces
    for position, piece in enumerate(pieces):
        reachable = not exempt and (mutated.gzipped or not damaged_before)
        following = pieces[position + 1] if position + 1 < len(pieces) else None
        if (
            not mutated.gzipped
            and following is not None
            and (following.damaged or following.origin is None)
        ):
            # Uncompressed, bytes inserted after a record look like its Content-Length lying:
            # the reader may reject it (bad_content_length) rather than trust it.
            reachable = False
        if piece.origin is not None and reachable:
            base = bases[piece.origin[0]]
            unit = base.units[piece.origin[1]]
            must.update(base.written.get(piece.origin[1], []))
            if unit.record is not None and unit.record.warc_type in CAPTURE_TYPES:
                least += 1
        damaged_before = damaged_before or piece.damaged or piece.origin is None
        exempt = piece.exempt_next
    return must, least
