"""Mutations of the web graph's text files (ranks, vertices, edges), line by line and whole.

Each mutation returns the new file's bytes, which lines are still the base's own (the oracle
requires their rows in the lake, value for value) and whether the gzip stream itself was
damaged (then only the lines before the damage can be held to).
"""

from __future__ import annotations

import gzip
import random
import zlib
from dataclasses import dataclass

VALUES = ["NaN", "nan", "Infinity", "-Infinity", "inf", "1e400", "-1e400", "-1", "0", "", "abc",
          "0x1A", " 7 ", "1_000", "\u0663", "9" * 30, "1e3", "+5", "--1"]  # fmt: skip
HOSTS = ["com..x", "com.exa mple", "com.b..a", "%41.com", "", ".com.x", "com.x.", "COM.Example",
         "a" * 300, "com,x", "com.ex\x00ample", "com.x\r", "com.\u00e9cole"]  # fmt: skip


@dataclass
class LineCase:
    """A mutated line file."""

    mutation: str
    data: bytes
    kept: list[int]  # indices (into the base's data lines) of lines left as they were
    stream_damaged: bool = False  # gzip bytes cut or flipped
    header_changed: bool = False


def data_lines(data: bytes, has_header: bool) -> tuple[bytes | None, list[bytes]]:
    """(header, data lines) of a gzipped base file."""
    lines = gzip.decompress(data).split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return (lines[0], lines[1:]) if has_header else (None, lines)


def count_lines(data: bytes) -> tuple[int, bool]:
    """Lines in a (possibly damaged) gzip file, and whether it inflated cleanly to its end."""
    if data[:2] != b"\x1f\x8b":
        text, clean = data, True
    else:
        parts, clean, position = [], True, 0
        while position < len(data):
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                parts.append(inflater.decompress(data[position:]))
            except zlib.error:
                clean = False
                break
            if not inflater.eof:
                clean = False
                break
            position = len(data) - len(inflater.unused_data)
        text = b"".join(parts)
    lines = text.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return len(lines), clean


def mutate(rng: random.Random, data: bytes, has_header: bool, width: int) -> LineCase:
    """One random mutation of a base file whose data lines have ``width`` tab-separated fields."""
    header, lines = data_lines(data, has_header)
    lines = list(lines)
    kept = list(range(len(lines)))
    kind = rng.choice(
        ["value", "value", "host", "fields", "duplicate", "blank", "crlf", "comment", "spaces",
         "non_utf8", "no_final_newline", "swap", "bom", "header", "truncate", "bit_flip",
         "not_gzip", "two_members", "garbage", "empty"]
    )  # fmt: skip
    touched: list[int] = []
    note = kind
    stream_damaged = header_changed = False
    if kind in ("value", "host", "fields", "crlf", "spaces", "non_utf8"):
        for _ in range(rng.randint(1, 3)):
            index = rng.randrange(len(lines))
            fields = lines[index].split(b"\t")
            if kind == "value":
                column = rng.choice([c for c in range(width) if width == 2 or c != width - 1])
                value = rng.choice(VALUES)
                fields[column] = value.encode()
            elif kind == "host":
                column = width - 1
                value = rng.choice(HOSTS)
                fields[column] = value.encode()
            elif kind == "fields":
                if rng.random() < 0.5 and len(fields) > 1:
                    value = f"drop field {len(fields) - 1}"
                    fields.pop()
                else:
                    value = "extra field"
                    fields.append(b"42")
            elif kind == "crlf":
                value = "CR"
                fields[-1] += b"\r"
            elif kind == "spaces":
                value = "tabs as spaces"
                fields = [b" ".join(fields)]
            else:
                value = "0xff 0xfe"
                fields[-1] += b"\xff\xfe"
            lines[index] = b"\t".join(fields)
            touched.append(index)
            note += f" line {index}: {value!r}"
    elif kind == "duplicate":
        index = rng.randrange(len(lines))
        lines.insert(rng.randint(0, len(lines)), lines[index])
        note += f" line {index}"
    elif kind in ("blank", "comment"):
        where = rng.randint(0, len(lines))
        lines.insert(where, b"" if kind == "blank" else b"#a comment\there")
        note += f" at {where}"
    elif kind == "swap":
        first, second = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[first], lines[second] = lines[second], lines[first]
        note += f" lines {first} and {second}"
    elif kind == "header" and header is not None:
        header = rng.choice([header.replace(b"#", b""), header + b"\t#extra", b"", b"garbage"])
        header_changed = True
        note += f" -> {header!r}"
    elif kind == "header":
        lines.insert(0, b"#harmonicc_pos\t#host_rev")
        note += " inserted"
    # a line that is no longer its base line is not held to
    kept = [index for index in kept if index not in touched]
    if kind in ("duplicate", "blank", "comment", "swap"):
        kept = list(range(len(data_lines(data, has_header)[1])))  # all lines still present
    body = b"\n".join(([header] if header is not None else []) + lines)
    if kind != "no_final_newline":
        body += b"\n"
    if kind == "bom":
        body = b"\xef\xbb\xbf" + body
        header_changed = has_header
        if not has_header:
            kept = [index for index in kept if index != 0]
    packed = gzip.compress(body, mtime=0)
    if kind == "truncate":
        cut = rng.randint(10, max(10, len(packed) - 1))
        packed, stream_damaged = packed[:cut], True
        note += f" at byte {cut} of {len(packed)}"
    elif kind == "bit_flip":
        flipped = bytearray(packed)
        position = rng.randrange(10, len(flipped))
        flipped[position] ^= 1 << rng.randrange(8)
        packed, stream_damaged = bytes(flipped), True
        note += f" at byte {position}"
    elif kind == "not_gzip":
        packed = body
    elif kind == "two_members":
        middle = body.find(b"\n", len(body) // 2) + 1
        packed = gzip.compress(body[:middle], mtime=0) + gzip.compress(body[middle:], mtime=0)
    elif kind == "garbage":
        packed = bytes(rng.randrange(256) for _ in range(rng.randint(1, 500)))
        stream_damaged, kept = True, []
    elif kind == "empty":
        packed, kept = b"", []
        stream_damaged = True
    return LineCase(note, packed, kept, stream_damaged, header_changed)
