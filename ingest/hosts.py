"""Host naming: the one place where host keys are derived (DESIGN.md, "the data contract").

Common Crawl spells a host three ways:

* a URL's host name, ``www.Sub.Example.com``;
* the web graph's reversed, dot-separated form, ``com.example.sub`` (FORMATS.md §1.2);
* the host index's SURT form, ``com,example,sub`` (FORMATS.md §2.1), the warehouse's host key.

Both Common Crawl forms lower-case the name, turn IDNs into punycode and drop one leading
``www`` label when more than two labels remain (``www.com`` stays ``com,www``).
"""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = [
    "host_from_url",
    "normalise_host",
    "rev_host_to_surt",
    "surt_host_name",
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


def rev_host_to_surt(rev_host: str) -> str:
    """The web graph's ``com.example.sub`` as the host index's ``com,example,sub``."""
    return rev_host.replace(".", ",")


def surt_to_rev_host(surt: str) -> str:
    """The host index's ``com,example,sub`` as the web graph's ``com.example.sub``."""
    return surt.replace(",", ".")
