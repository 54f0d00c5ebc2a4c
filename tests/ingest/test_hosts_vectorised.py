"""`ingest.hosts`: the vectorised host-key functions agree with the scalar ones they mirror."""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

from ingest.hosts import (
    bad_dotted_names,
    bad_host_keys,
    bad_host_names,
    host_from_url,
    host_name_problem,
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


# ----------------------------------------------------------------------- the host-key rule

# Keys every reader must refuse (issue 17 #6), and real shapes every reader must take.
BAD_KEYS = [
    "com,exa mple",
    "com,b,,a",
    "%41",
    "com,%41",
    "Com,Example",
    "COM",
    "",
    "va,",
    ",com",
    "com," + "a" * 64,  # a label over 63 characters
    ",".join(["a" * 60] * 5),  # over 253 characters
    "com,example.sub",  # the graph's separator inside a SURT key
    "com,exämple",
    "com,a\\b",
    "com,a\tb",
]
GOOD_KEYS = [
    "com,example",
    "com,example,sub",
    "va",
    "de,xn--bcher-kva",
    "com,blogspot,-foo",
    "com,a_b,x-y",
    "1,2,0,192",
    "com," + "a" * 63,
    ",".join(["a" * 62] * 4),  # 251 characters
]


def test_the_scalar_and_vectorised_host_key_rules_agree():
    keys = [*BAD_KEYS, *GOOD_KEYS, None]
    expected = [True] * len(BAD_KEYS) + [False] * len(GOOD_KEYS) + [True]
    assert bad_host_keys(pa.array(keys)).tolist() == expected
    assert [host_name_problem(key, ",") is not None for key in keys] == expected
    dotted = [None if key is None else key.replace(",", ".") for key in keys]
    dotted[BAD_KEYS.index("com,example.sub")] = "com.example,sub"  # the SURT comma in a name
    assert bad_host_names(pa.array(dotted), ".").tolist() == expected
    assert [host_name_problem(name) is not None for name in dotted] == expected
    array = pa.array(keys)
    for start in range(0, len(keys), 4):  # sliced arrays: offsets not at 0
        window = array.slice(start, 5)
        assert bad_host_keys(window).tolist() == expected[start : start + 5]
    assert bad_host_keys(pa.chunked_array([keys[:3], keys[3:]])).tolist() == expected


@pytest.mark.parametrize(
    "url",
    [
        "http://exa mple.com/",
        "http://%41.com/",
        "http://ex\u00a0ample.com/",  # IDNA maps a no-break space to a space
        "http://" + "a" * 64 + ".com/",
        "http://" + "é" * 70 + ".com/",  # not IDNA-encodable: the label is too long
        "http://" + ".".join(["a" * 60] * 5) + "/",
    ],
)
def test_the_document_readers_host_functions_refuse_what_the_rule_refuses(url: str):
    """documents.py rejects a record as bad_url when host_from_url/surt_host_name raise."""
    with pytest.raises(ValueError):
        surt_host_name(host_from_url(url))
    hosts, bad = surt_host_names_of_urls(pa.array([url]))
    assert bad.tolist() == [True] and hosts.to_pylist() == [None]


def test_surt_host_name_raises_for_a_host_the_rule_refuses():
    for host in ["exa mple.com", "a..b", "%41", "a" * 64 + ".com", "com,b"]:
        with pytest.raises(ValueError, match="not a host name"):
            surt_host_name(host)
    with pytest.raises(ValueError, match="not a host name"):
        host_from_url("http://exa mple.com/")
    assert surt_host_name("-foo.blogspot.com") == "com,blogspot,-foo"
