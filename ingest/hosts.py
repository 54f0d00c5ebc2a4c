"""Host naming: the one place where host keys are derived (DESIGN.md, "the data contract").

Common Crawl spells a host three ways:

* a URL's host name, ``www.Sub.Example.com``;
* the web graph's reversed, dot-separated form, ``com.example.sub`` (FORMATS.md §1.2);
* the host index's SURT form, ``com,example,sub`` (FORMATS.md §2.1), the warehouse's host key.

Both Common Crawl forms lower-case the name, turn IDNs into punycode and drop one leading
``www`` label when more than two labels remain (``www.com`` stays ``com,www``).

A host also has two notions of "TLD", kept apart and named as Common Crawl names them:

* ``url_host_tld``, the last label of the host name (``uk`` for ``www.ox.ac.uk``): what Common
  Crawl's host index and columnar index call ``url_host_tld`` ("top-level domain or last part
  of the hostname", cc-index-table's schema). The paper's per-TLD shares (its ``.uk``) use it.
* ``url_host_registry_suffix``, the public suffix under which the host's domain is registered
  (``ac.uk``): the columnar index's ``url_host_registry_suffix``. The TLD macro categories
  (academic, government, …) need it. It is the registered domain without its first label, so
  it is computed the same way for documents (registered domain from the public-suffix list)
  and for the host index (its ``url_host_registered_domain``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "host_from_url",
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


def normalise_host(host: str) -> str:
    """Lower-case a host name, drop a trailing dot and a port, and encode IDN labels as punycode.

    Args:
        host: a host name as it appears in a URL (``Bücher.Example.de:8080``).

    Returns:
        The ASCII host name (``xn--bcher-kva.example.de``).

    Raises:
        ValueError: if the host is empty or a label cannot be IDNA-encoded.
    """
    name = host.strip().rstrip(".").lower()
    if name.startswith("[") or not name:
        raise ValueError(f"not a host name: {host!r}")
    name = name.rsplit(":", 1)[0] if name.count(":") == 1 else name
    if name.isascii():
        return name
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError as error:
        raise ValueError(f"cannot encode host {host!r} as IDNA: {error}") from error


def host_from_url(url: str) -> str:
    """The normalised host name of a URL (``https://www.Example.com/a`` → ``www.example.com``)."""
    host = urlsplit(url.strip()).hostname
    if not host:
        raise ValueError(f"URL has no host: {url!r}")
    return normalise_host(host)


def surt_host_name(host: str) -> str:
    """Common Crawl's SURT host key of a host name or URL.

    Examples:
        ``www.example.com`` → ``com,example``; ``sub.example.com`` → ``com,example,sub``;
        ``www.com`` → ``com,www``.
    """
    name = host_from_url(host) if "/" in host else normalise_host(host)
    labels = name.split(".")
    if len(labels) > 2 and labels[0] == "www":
        labels = labels[1:]
    return ",".join(reversed(labels))


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


def surt_to_rev_host(surt: str) -> str:
    """The host index's ``com,example,sub`` as the web graph's ``com.example.sub``."""
    return surt.replace(",", ".")


# ----------------------------------------------------------------------- vectorised (Arrow)
#
# The same rules over whole Arrow arrays, for readers of files with hundreds of millions of rows.
# Tests check them against the functions above. They also refuse names with a character outside
# the host-name alphabet (letters, digits, ``-``, ``_``, ``.``), an empty label, or no name.

_HOST_BYTES = np.zeros(256, dtype=bool)
for _character in b"abcdefghijklmnopqrstuvwxyz0123456789-_.":
    _HOST_BYTES[_character] = True
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


def bad_dotted_names(names: pa.Array) -> np.ndarray:
    """Rows that are not dot-separated host names in the host alphabet (null, empty, ``a..b``).

    Args:
        names: string array of lower-case names (``com.example.sub`` or ``sub.example.com``).

    Returns:
        A boolean mask, True where the row is not a valid name.
    """
    bad = np.asarray(names.is_null().to_numpy(zero_copy_only=False)).copy()
    data, offsets = _bytes_and_offsets(names)
    lengths = np.diff(offsets)
    bad |= lengths == 0
    if data.size == 0:
        return bad
    outside = ~_HOST_BYTES[data]
    if outside.any():
        bad[_rows_of(np.flatnonzero(outside), offsets)] = True
    dots = data == _DOT
    double = np.flatnonzero(dots[1:] & dots[:-1])
    if double.size:
        bad[_rows_of(double, offsets)] = True
    filled = lengths > 0
    bad[filled] |= dots[offsets[:-1][filled]] | dots[offsets[1:][filled] - 1]
    return bad


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
