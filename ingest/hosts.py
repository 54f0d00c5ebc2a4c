"""Host naming: the one place where host keys are derived (DESIGN.md, "the data contract").

Common Crawl spells a host three ways:

* a URL's host name, ``www.Sub.Example.com``;
* the web graph's reversed, dot-separated form, ``com.example.sub`` (FORMATS.md §1.2);
* the host index's SURT form, ``com,example,sub`` (FORMATS.md §2.1), the warehouse's host key.

Both Common Crawl forms lower-case the name and turn IDNs into punycode. The host index, and
the warehouse's key everywhere, drop one leading ``www`` label when more than two labels remain
(``www.com`` stays ``com,www``); web-graph releases from ``cc-main-2025-26-nov-dec-jan`` on keep
it in their vertex names (``com.facebook.www``), and :func:`graph_host_key` drops it there.

A host also has two notions of "TLD", kept apart and named as Common Crawl names them:

* ``url_host_tld``, the last label of the host name (``uk`` for ``www.ox.ac.uk``): what Common
  Crawl's host index and columnar index call ``url_host_tld`` ("top-level domain or last part
  of the hostname", cc-index-table's schema). The paper's per-TLD shares (its ``.uk``) use it.
* ``url_host_registry_suffix``, the public suffix under which the host's domain is registered
  (``ac.uk``): the columnar index's ``url_host_registry_suffix``. The TLD macro categories
  (academic, government, …) need it. It is the registered domain without its first label, so
  it is computed the same way for documents (registered domain from the public-suffix list)
  and for the host index (its ``url_host_registered_domain``).

**The host-key rule**, the one check every ingest applies (the web graph's ranks and vertices,
the host index, both annotation levels, and documents through :func:`host_from_url` and
:func:`surt_host_name`): a host name is one or more labels joined by the form's separator
(``.`` in a host name or the graph's reversed name, ``,`` in a SURT key), each label 1 to 63
characters of ``a-z``, ``0-9``, ``-`` and ``_``, the whole at most 253 characters. Refused:
an empty name or label (``com,b,,a``, a leading or trailing separator: ``va,``), upper case
(Common Crawl's keys are lower case; URL hosts are lower-cased before the check), a space,
``%``, a backslash or any other character (``com,exa mple``, ``%41``), a label over 63 characters,
the other form's separator inside a key (``com,example.sub``), and a non-ASCII name that IDNA
cannot encode. ``-`` and ``_`` may stand anywhere in a label: real host names have them
(``-foo.blogspot.com``), so the rule is looser than DNS's. It is :func:`host_name_problem`
(scalar) and :func:`bad_host_names` (over Arrow arrays); tests check they agree.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "MAX_HOST_LENGTH",
    "MAX_LABEL_LENGTH",
    "bad_dotted_names",
    "bad_host_keys",
    "bad_host_names",
    "graph_host_key",
    "graph_host_keys",
    "host_from_url",
    "host_name_problem",
    "host_tld",
    "normalise_host",
    "registry_suffix",
    "registry_suffixes",
    "rev_host_to_surt",
    "rev_hosts_to_surt",
    "surt_host_name",
    "surt_host_names_of_urls",
    "surt_to_rev_host",
]

MAX_LABEL_LENGTH = 63  # a DNS label; Common Crawl's graph drops hosts with longer ones
MAX_HOST_LENGTH = 253  # a DNS name, separators included
_LABEL_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


def host_name_problem(name: str | None, separator: str = ".") -> str | None:
    """What is wrong with a host name or key under the host-key rule (module docstring).

    Args:
        name: ``sub.example.com`` or ``com.example.sub`` (``separator`` ``.``), or a SURT key
            ``com,example,sub`` (``separator`` ``,``).
        separator: the form's label separator.

    Returns:
        None for a valid name, else a few words saying why it is not one.
    """
    if not name:
        return "empty host name"
    if len(name) > MAX_HOST_LENGTH:
        return f"longer than {MAX_HOST_LENGTH} characters"
    for label in name.split(separator):
        if not label:
            return f"an empty label (separator {separator!r} doubled, leading or trailing)"
        if len(label) > MAX_LABEL_LENGTH:
            return f"a label longer than {MAX_LABEL_LENGTH} characters"
        outside = next(
            (character for character in label if character not in _LABEL_CHARACTERS), None
        )
        if outside is not None:
            return f"character {outside!r} is not a-z, 0-9, '-' or '_'"
    return None


def _checked_name(name: str, written: str, separator: str = ".") -> str:
    problem = host_name_problem(name, separator)
    if problem is not None:
        raise ValueError(f"not a host name: {written!r}: {problem}")
    return name


def normalise_host(host: str) -> str:
    """Lower-case a host name, drop a trailing dot and a port, and encode IDN labels as punycode.

    Args:
        host: a host name as it appears in a URL (``Bücher.Example.de:8080``).

    Returns:
        The ASCII host name (``xn--bcher-kva.example.de``).

    Raises:
        ValueError: if the host is empty, a label cannot be IDNA-encoded, or the name breaks
            the host-key rule (module docstring).
    """
    name = host.strip().rstrip(".").lower()
    if name.startswith("[") or not name:
        raise ValueError(f"not a host name: {host!r}")
    name = name.rsplit(":", 1)[0] if name.count(":") == 1 else name
    if not name.isascii():
        try:
            name = name.encode("idna").decode("ascii")
        except UnicodeError as error:
            raise ValueError(f"cannot encode host {host!r} as IDNA: {error}") from error
    return _checked_name(name, host)


def host_from_url(url: str) -> str:
    """The normalised host name of a URL (``https://www.Example.com/a`` → ``www.example.com``).

    Raises:
        ValueError: the URL has no host, or its host breaks the host-key rule.
    """
    host = urlsplit(url.strip()).hostname
    if not host:
        raise ValueError(f"URL has no host: {url!r}")
    return normalise_host(host)


def surt_host_name(host: str) -> str:
    """Common Crawl's SURT host key of a host name or URL.

    Examples:
        ``www.example.com`` → ``com,example``; ``sub.example.com`` → ``com,example,sub``;
        ``www.com`` → ``com,www``.

    Raises:
        ValueError: there is no host, or it breaks the host-key rule (module docstring).
    """
    name = host_from_url(host) if "/" in host else normalise_host(host)
    labels = name.split(".")
    if len(labels) > 2 and labels[0] == "www":
        labels = labels[1:]
    return _checked_name(",".join(reversed(labels)), host, ",")


def host_tld(host: str) -> str | None:
    """``url_host_tld`` of a normalised host name: its last label, None for an IP address.

    Examples:
        ``www.ox.ac.uk`` → ``uk``; ``example.com`` → ``com``; ``192.0.2.1`` → None.
    """
    label = host.rsplit(".", 1)[-1]
    if not label or label.isdigit():
        return None
    return label


def registry_suffix(registered_domain: str | None) -> str | None:
    """``url_host_registry_suffix``: a registered domain without its first label.

    Examples:
        ``ox.ac.uk`` → ``ac.uk``; ``example.com`` → ``com``; None or ``''`` → None.
    """
    if not registered_domain or "." not in registered_domain:
        return None
    return registered_domain.split(".", 1)[1]


def rev_host_to_surt(rev_host: str) -> str:
    """The web graph's ``com.example.sub`` as the host index's ``com,example,sub``."""
    return rev_host.replace(".", ",")


def graph_host_key(rev_host: str) -> str:
    """The host key of a web-graph vertex name: its SURT form with one trailing ``www`` dropped.

    Host-graph releases from ``cc-main-2025-26-nov-dec-jan`` on keep a leading ``www`` in
    their vertex names (``com.facebook.www`` beside ``com.facebook``); the warehouse keys a
    host as :func:`surt_host_name` does, without it. So the last label is dropped when it is
    ``www`` and more than two labels remain, the same rule as for a URL's host name read
    backwards (``com.www`` stays ``com,www``). Applied to every release alike. Older releases
    dropped one leading ``www`` before naming a vertex (cc-pyspark's ``get_surt_host``), so a
    name of theirs ends in ``www`` only for a ``www.www.`` host, which this keys to its bare
    host too (the documents' key keeps one ``www`` there); none is among the 1,000 most
    central hosts of any release before 2025-26.

    Examples:
        ``com.facebook.www`` → ``com,facebook``; ``com.example.www.www`` →
        ``com,example,www``; ``com.www`` → ``com,www``; ``org.wikipedia.en`` →
        ``org,wikipedia,en``.
    """
    labels = rev_host.split(".")
    if len(labels) > 2 and labels[-1] == "www":
        labels = labels[:-1]
    return ",".join(labels)


def surt_to_rev_host(surt: str) -> str:
    """The host index's ``com,example,sub`` as the web graph's ``com.example.sub``."""
    return surt.replace(",", ".")


# ----------------------------------------------------------------------- vectorised (Arrow)
#
# The same rules over whole Arrow arrays, for readers of files with hundreds of millions of rows.
# Tests check them against the functions above: bad_host_names is host_name_problem, row by row.

_LABEL_BYTES = np.zeros(256, dtype=bool)
for _character in sorted(_LABEL_CHARACTERS):
    _LABEL_BYTES[ord(_character)] = True
_DOT = ord(".")


def _bytes_and_offsets(array: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A string array's value bytes and its offsets into them, starting at 0 (zero copy)."""
    if pa.types.is_large_string(array.type):
        array = array.cast(pa.string())
    _, offsets_buffer, data_buffer = array.buffers()
    offsets = np.frombuffer(
        offsets_buffer, dtype=np.int32, count=len(array) + 1, offset=array.offset * 4
    )
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else None
    if data is None or len(array) == 0:
        return np.zeros(0, dtype=np.uint8), np.zeros(len(array) + 1, dtype=np.int32)
    return data[offsets[0] : offsets[-1]], offsets - offsets[0]


def _rows_of(positions: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The row of each byte position."""
    return np.searchsorted(offsets, positions, side="right") - 1


def bad_host_names(names: pa.Array | pa.ChunkedArray, separator: str = ".") -> np.ndarray:
    """Rows that break the host-key rule (:func:`host_name_problem`); nulls are bad.

    Args:
        names: string array of names in one form (``com.example.sub`` or ``sub.example.com``
            with ``separator`` ``.``, SURT keys ``com,example,sub`` with ``,``).
        separator: the form's label separator.

    Returns:
        A boolean mask, True where the row is not a valid name.
    """
    if isinstance(names, pa.ChunkedArray):
        names = names.combine_chunks()
    if not (pa.types.is_string(names.type) or pa.types.is_large_string(names.type)):
        names = names.cast(pa.string())
    bad = np.asarray(names.is_null().to_numpy(zero_copy_only=False)).copy()
    data, offsets = _bytes_and_offsets(names)
    lengths = np.diff(offsets)
    bad |= (lengths == 0) | (lengths > MAX_HOST_LENGTH)
    if data.size == 0:
        return bad
    cut = data == ord(separator)
    outside = ~(_LABEL_BYTES[data] | cut)  # non-ASCII bytes too: never in a label
    if outside.any():
        bad[_rows_of(np.flatnonzero(outside), offsets)] = True
    double = np.flatnonzero(cut[1:] & cut[:-1])
    if double.size:
        bad[_rows_of(double + 1, offsets)] = True
    filled = lengths > 0
    bad[filled] |= cut[offsets[:-1][filled]] | cut[offsets[1:][filled] - 1]
    # A label's length: each byte's distance from the start of its label (a row start or
    # the byte after a separator).
    position = np.arange(data.size)
    starts = np.zeros(data.size, dtype=bool)
    starts[offsets[:-1][offsets[:-1] < data.size]] = True
    starts[1:] |= cut[:-1]
    label_start = np.maximum.accumulate(np.where(starts, position, 0))
    long = np.flatnonzero(~cut & (position - label_start >= MAX_LABEL_LENGTH))
    if long.size:
        bad[_rows_of(long, offsets)] = True
    return bad


def bad_dotted_names(names: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """:func:`bad_host_names` of dot-separated names (URL hosts, the graph's reversed hosts)."""
    return bad_host_names(names, ".")


def bad_host_keys(keys: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """:func:`bad_host_names` of SURT host keys (``com,example,sub``)."""
    return bad_host_names(keys, ",")


def registry_suffixes(registered_domains: pa.Array) -> pa.Array:
    """:func:`registry_suffix` over an array (null where there is no suffix)."""
    if not pa.types.is_string(registered_domains.type):
        registered_domains = registered_domains.cast(pa.string())
    suffix = pc.struct_field(
        pc.extract_regex(registered_domains, r"^[^.]+[.](?P<suffix>.+)$"), "suffix"
    )
    return pc.if_else(pc.equal(suffix, ""), None, suffix)


def rev_hosts_to_surt(rev_hosts: pa.Array) -> pa.Array:
    """:func:`rev_host_to_surt` over an array: ``com.example.sub`` → ``com,example,sub``."""
    data, offsets = _bytes_and_offsets(rev_hosts)
    replaced = np.where(data == _DOT, np.uint8(ord(",")), data)
    surt = pa.StringArray.from_buffers(
        len(rev_hosts), pa.py_buffer(offsets), pa.py_buffer(replaced)
    )
    return pc.if_else(rev_hosts.is_null(), None, surt) if rev_hosts.null_count else surt


def graph_host_keys(rev_hosts: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """:func:`graph_host_key` over an array, and a mask of the names that lost a ``www``.

    Args:
        rev_hosts: string array of the graph's reversed host names (``com.facebook.www``).

    Returns:
        The host keys (``com,facebook``), and True where a trailing ``www`` was dropped.
    """
    surt = rev_hosts_to_surt(rev_hosts)
    dropped = pc.and_(
        pc.ends_with(surt, ",www"), pc.greater_equal(pc.count_substring(surt, ","), 2)
    )
    mask = np.asarray(pc.fill_null(dropped, False).to_numpy(zero_copy_only=False))
    if not mask.any():  # every release before 2025-26, and most batches after
        return surt, mask
    return pc.if_else(dropped, pc.utf8_slice_codeunits(surt, 0, -4), surt), mask


_URL_HOST = r"^\s*[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?(?P<host>[^/?#:]*)"


def surt_host_names_of_urls(urls: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """:func:`surt_host_name` of every URL, vectorised; rows without a valid host are null.

    Args:
        urls: string array of absolute URLs.

    Returns:
        The SURT host keys, and a mask of the rows whose URL has no valid host name.
    """
    if not pa.types.is_string(urls.type):  # large_string would give large_string labels
        urls = urls.cast(pa.string())
    written = pc.struct_field(pc.extract_regex(urls, _URL_HOST), "host")
    host = pc.utf8_rtrim(pc.utf8_lower(written), ".")
    foreign = np.asarray(
        pc.invert(pc.fill_null(pc.string_is_ascii(written), True)).to_numpy(zero_copy_only=False)
    )
    if foreign.any():  # IDNs: Python's lower() and IDNA codec, row by row (rare)
        names, originals = host.to_pylist(), written.to_pylist()
        for row in np.flatnonzero(foreign).tolist():
            try:  # from the name as written: Arrow lower-cases some letters otherwise (İ)
                names[row] = normalise_host(originals[row])
            except ValueError:
                names[row] = None
        host = pa.array(names, pa.string())
    bad = bad_dotted_names(host)
    host = pc.if_else(pa.array(bad), None, host)
    drop_www = pc.and_(
        pc.starts_with(host, "www."), pc.greater_equal(pc.count_substring(host, "."), 2)
    )
    host = pc.if_else(drop_www, pc.utf8_slice_codeunits(host, 4), host)
    labels = pc.split_pattern(host, ".")
    if isinstance(labels, pa.ChunkedArray):
        labels = labels.combine_chunks()
    return pc.binary_join(_reversed_lists(labels), ","), bad


def _reversed_lists(lists: pa.ListArray) -> pa.ListArray:
    """Each list's items in reverse order (nulls stay null)."""
    offsets = np.asarray(lists.offsets.to_numpy(zero_copy_only=False), dtype=np.int64)
    first = offsets[0]
    offsets = offsets - first
    items = lists.values.slice(first, offsets[-1])
    lengths = np.diff(offsets)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    position = np.arange(offsets[-1]) - offsets[owner]
    order = offsets[owner] + lengths[owner] - 1 - position
    return pa.ListArray.from_arrays(
        pa.array(offsets.astype(np.int32)), items.take(pa.array(order)), mask=lists.is_null()
    )
