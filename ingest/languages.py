"""Language codes: every language the document ingest lands is in one code system.

The ``language`` column holds the ISO 639-1 code (two letters) of a language that has one, and
the ISO 639-3 code (three letters) of one that does not, whichever path named it:

* a WARC page's ``languages-cld2`` (CLD2 codes: ISO 639-1, a few BCP 47 tags such as
  ``zh-Hant``, and codes ISO 639-1 withdrew, such as ``iw`` for Hebrew);
* a WET record's ``WARC-Identified-Content-Language`` (Common Crawl writes ISO 639-3 codes,
  ``ukr``, comma-separated);
* fastText's ``lid.176`` (ISO 639-1 where one exists, else a three-letter code).

The table is the ``iso639-lang`` package's (ISO 639-1, 639-2/T, 639-2/B and 639-3, as SIL
and the Library of Congress publish them), not a hand list: ``ukr`` → ``uk``, ``ell`` → ``el``,
the macrolanguages ``zho`` → ``zh``, ``ara`` → ``ar``, ``nor`` → ``no``, and the 639-2/B
codes ``ger``, ``fre``, ``chi`` → ``de``, ``fr``, ``zh``. A code the standard withdrew is read
as the code that replaced it when the package names one (``iw`` → ``he``, ``in`` → ``id``,
``jw`` → ``jv``, ``mol`` → ``ro``; ``mo`` and ``sh`` name none and are kept). A code shaped like
one but in no table is kept, lower-cased: the table may be older than the code.

A code is *shaped* like one when it is a BCP 47 language tag (RFC 5646 §2.1) whose primary
subtag is two or three letters (an ISO 639 code), followed by any subtags of one to eight
letters or digits (``zh-Hant``, ``pt-BR``; ``_`` is read as ``-``). Only the primary subtag is
kept. CLD2's ``un`` and ``xx`` and ISO 639-2's ``und`` and ``zxx`` say that no language was
identified: they give no code.
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["is_language_code", "language_code"]

_TAG = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8})*")
_NO_LANGUAGE = frozenset({"un", "xx", "und", "zxx"})


@cache
def _table() -> dict[str, str]:
    """Every ISO 639-1, 639-2/T, 639-2/B and 639-3 code → the column's code for it."""
    from iso639 import iter_langs

    table: dict[str, str] = {}
    bibliographic: dict[str, str] = {}
    for lang in iter_langs():
        target = lang.pt1 or lang.pt3 or lang.pt2t or lang.pt2b
        if not target:
            continue  # a collective (ISO 639-5) code only: no single language
        for code in (lang.pt1, lang.pt2t, lang.pt3):
            if code:
                table.setdefault(code, target)
        if lang.pt2b:
            bibliographic[lang.pt2b] = target
    for code, target in bibliographic.items():  # never over a 639-1/-2T/-3 code
        table.setdefault(code, target)
    return table


@cache
def _withdrawn(code: str) -> str | None:
    """The column's code for a code ISO 639 withdrew, when the package names its replacement."""
    from iso639 import Lang
    from iso639.exceptions import DeprecatedLanguageValue, InvalidLanguageValue

    try:
        Lang(code)
    except DeprecatedLanguageValue as withdrawn:
        return _table().get(withdrawn.change_to) if withdrawn.change_to else None
    except InvalidLanguageValue:
        return None
    return None


def is_language_code(value: str) -> bool:
    """Whether ``value`` is shaped like a language code (see the module docstring)."""
    return _TAG.fullmatch(value.strip()) is not None


def language_code(value: str | None) -> str | None:
    """The column's code for a language code or tag, or None when it names no language.

    ISO 639-1 where the language has one, else its ISO 639-3 code (see the module docstring);
    None for ``un``, ``xx``, ``und``, ``zxx``, an empty value or one not shaped like a code.
    """
    if value is None or not is_language_code(value):
        return None
    primary = re.split(r"[-_]", value.strip(), maxsplit=1)[0].lower()
    if primary in _NO_LANGUAGE:
        return None
    table = _table()
    if primary in table:
        return table[primary]
    return _withdrawn(primary) or primary
