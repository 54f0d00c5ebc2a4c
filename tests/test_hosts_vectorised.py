"""`ingest.hosts`: the vectorised host-key functions agree with the scalar ones they mirror."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

from ingest.hosts import (
    bad_dotted_names,
    host_from_url,
    host_tld,
    normalise_host,
    registry_suffix,
    registry_suffixes,
    rev_host_to_surt,
    rev_hosts_to_surt,
    surt_host_name,
    surt_host_names_of_urls,
    surt_to_rev_host,
)

GOOD_URLS = [
    "https://www.example.com/",
    "HTTP://WWW.Example.COM/Path",
    "HtTpS://WwW.ExAmPlE.CoM",
    "http://example.com:8080/x",
    "http://example.com:/",
    "https://user:pw@www.example.org:443/a?b#c",
    "http://user@host.example",
    "http://example.com./",
    "http://www.example.com..",
    "http://www.com/",  # two labels: www stays
    "http://www.com./",
    "http://www.www.example.com/",  # one www dropped
    "http://www/",
    "http://www.x/",
    "http://wwwexample.com/",
    "http://sub.example.com/",
    "http://a.b.c.d.e.f.g.example.co.uk/deep/path",
    "http://Bücher.example.de/x",
    "http://BÜCHER.Example.DE",
    "http://www.bücher.de/",
    "https://münchen.de:8080/",
    "http://straße.de/",
    "http://İstanbul.tr/",  # Python and Arrow lower-case İ differently
    "http://ÉCOLE.fr",
    "http://例え.テスト/",
    "http://ＥＸＡＭＰＬＥ.com/",  # full-width letters: NFKC in IDNA
    "http://xn--bcher-kva.example.de/",
    "http://example.com?x=1",
    "http://example.com#frag",
    "http://example.com/?q=a.b@c",
    "http://example.com/path@not-userinfo",
    "  http://example.com/  ",
    "http://ex-ample_1.com/",
    "ftp://files.example.net/",
    "http://1.2.3.4/",
    "http://a/b/c",
    "https://va/",
    "https://sub.domain.example.com:443/a/b.html?x=1&y=2#top",
]

BAD_URLS = [
    "example.com/path",  # no scheme
    "//example.com/",
    "http://[::1]/",  # IPv6 literal
    "http://[2001:db8::1]:80/x",
    "http:///path",  # empty host
    "http://",
    "",
    "http://a..b/",
    "http://.example.com/",
    "http://ex ample.com/",
    "http://%41.com/",
    "http://a\\b.com/",
    "mailto:someone@example.com",
]


def _scalar(url: str) -> str:
    return surt_host_name(url)


def test_the_vectorised_surt_agrees_with_the_scalar_one():
    hosts, bad = surt_host_names_of_urls(pa.array(GOOD_URLS))
    assert not bad.any()
    assert hosts.to_pylist() == [_scalar(url) for url in GOOD_URLS]
    by_url = dict(zip(GOOD_URLS, hosts.to_pylist(), strict=True))
    assert by_url["HTTP://WWW.Example.COM/Path"] == "com,example"
    assert by_url["http://www.com/"] == "com,www"
    assert by_url["http://www.www.example.com/"] == "com,example,www"
    assert by_url["http://Bücher.example.de/x"] == "de,example,xn--bcher-kva"
    assert by_url["http://www.bücher.de/"] == "de,xn--bcher-kva"
    assert by_url["http://İstanbul.tr/"] == "tr,xn--istanbul-o0e"
    assert by_url["https://user:pw@www.example.org:443/a?b#c"] == "org,example"
    assert by_url["http://a.b.c.d.e.f.g.example.co.uk/deep/path"] == "uk,co,example,g,f,e,d,c,b,a"


def test_bad_urls_are_flagged_and_null():
    urls = pa.array([*BAD_URLS, None])
    hosts, bad = surt_host_names_of_urls(urls)
    assert bad.tolist() == [True] * len(urls)
    assert hosts.null_count == len(urls)


def test_a_large_mixed_array_with_nulls_and_slices():
    rng = random.Random(7)
    labels = ["www", "sub", "Example", "bücher", "a-b", "x_y", "co", "uk", "com", "de", "ÉCOLE"]
    urls: list[str | None] = []
    for _ in range(3000):
        roll = rng.random()
        if roll < 0.05:
            urls.append(None)
        elif roll < 0.15:
            urls.append(rng.choice(BAD_URLS))
        else:
            host = ".".join(rng.choice(labels) for _ in range(rng.randint(1, 5)))
            scheme = rng.choice(["http", "https", "HTTPS"])
            port = rng.choice(["", ":80", ":8443"])
            user = rng.choice(["", "user@", "u:p@"])
            dot = rng.choice(["", "", "."])
            tail = rng.choice(["", "/", "/a/b?c=d", "#f", "?q"])
            urls.append(f"{scheme}://{user}{host}{dot}{port}{tail}")
    array = pa.array(urls)
    for start, length in [(0, len(urls)), (1, 1000), (1237, 1500), (2999, 1), (5, 0)]:
        window = array.slice(start, length)
        hosts, bad = surt_host_names_of_urls(window)
        expected_hosts, expected_bad = [], []
        for url in urls[start : start + length]:
            if url is None or url in BAD_URLS:
                expected_hosts.append(None)
                expected_bad.append(True)
            else:
                expected_hosts.append(_scalar(url))
                expected_bad.append(False)
        assert hosts.to_pylist() == expected_hosts
        assert bad.tolist() == expected_bad
    assert len(set(surt_host_names_of_urls(array)[0].to_pylist())) > 500


def test_large_string_and_all_null_url_arrays():
    hosts, bad = surt_host_names_of_urls(pa.array(["http://www.a.b/"], pa.large_string()))
    assert (hosts.to_pylist(), bad.tolist()) == (["b,a"], [False])
    hosts, bad = surt_host_names_of_urls(pa.array([None, None], pa.string()))
    assert (hosts.to_pylist(), bad.tolist()) == ([None, None], [True, True])
    hosts, bad = surt_host_names_of_urls(pa.array([], pa.string()))
    assert (hosts.to_pylist(), bad.tolist()) == ([], [])


def test_rev_hosts_to_surt_on_sliced_arrays_with_nulls():
    names = ["com.a", None, "org.b.c", "", "de.x.y.z", None, "va", "uk.co.bbc.www"]
    array = pa.array(names)
    for start in range(len(names)):
        for length in range(len(names) - start + 1):
            window = array.slice(start, length)
            out = rev_hosts_to_surt(window)
            expected = [
                None if name is None else rev_host_to_surt(name)
                for name in names[start : start + length]
            ]
            assert out.to_pylist() == expected, (start, length)
            assert out.type == pa.string()
    assert rev_hosts_to_surt(pa.array(["com.example.sub"], pa.large_string())).to_pylist() == [
        "com,example,sub"
    ]
    assert rev_hosts_to_surt(pa.array([None, None], pa.string())).to_pylist() == [None, None]


def test_bad_dotted_names():
    names = ["a.b", "", None, ".a", "a.", "a..b", "A.b", "a-b_c.d9", "ü.de", "a b", "com"]
    expected = [False, True, True, True, True, True, True, False, True, True, False]
    assert bad_dotted_names(pa.array(names)).tolist() == expected
    array = pa.array(names)
    for start in range(len(names)):
        window = array.slice(start, 3)
        assert bad_dotted_names(window).tolist() == expected[start : start + 3]
    assert bad_dotted_names(pa.array([None, None], pa.string())).tolist() == [True, True]
    assert isinstance(bad_dotted_names(pa.array(["a"])), np.ndarray)


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("www.example.com", "com,example"),
        ("sub.example.com", "com,example,sub"),
        ("www.com", "com,www"),
        ("https://sub.example.com/", "com,example,sub"),
        ("Bücher.Example.de:8080", "de,example,xn--bcher-kva"),
        ("example.com.", "com,example"),
    ],
)
def test_scalar_surt_host_name(host: str, expected: str):
    assert surt_host_name(host) == expected


def test_scalar_helpers():
    assert normalise_host(" Bücher.Example.de:8080 ") == "xn--bcher-kva.example.de"
    assert host_from_url("https://www.Example.com/a") == "www.example.com"
    assert surt_to_rev_host("com,example,sub") == "com.example.sub"
    assert rev_host_to_surt(surt_to_rev_host("org,commoncrawl")) == "org,commoncrawl"
    for bad in ("", "[::1]", "  "):
        with pytest.raises(ValueError, match="not a host name"):
            normalise_host(bad)
    with pytest.raises(ValueError, match="URL has no host"):
        host_from_url("http:///path")


@pytest.mark.parametrize(
    ("host", "tld"),
    [("www.ox.ac.uk", "uk"), ("example.com", "com"), ("va", "va"), ("192.0.2.1", None)],
)
def test_the_tld_is_the_hosts_last_label(host: str, tld: str | None):
    assert host_tld(host) == tld


def test_registry_suffixes_match_the_scalar_function():
    domains = ["ox.ac.uk", "example.com", "a.b.gov.uk", "localhost", "", None, "xn--bcher-kva.de"]
    expected = [registry_suffix(domain) for domain in domains]
    assert expected == ["ac.uk", "com", "b.gov.uk", None, None, None, "de"]
    assert registry_suffixes(pa.array(domains, pa.string())).to_pylist() == expected
    assert registry_suffixes(pa.array(domains, pa.large_string())).to_pylist() == expected
