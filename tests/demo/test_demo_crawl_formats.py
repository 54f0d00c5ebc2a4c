"""The tiny demo crawl's files, read back with the readers a user would use, against Common
Crawl's formats: the WARC sample, the web-graph releases, the host index and the GneissWeb
annotations (and the demo crawl's ranks, for Java's scientific notation).
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import duckdb
import networkx as nx
import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from scipy.stats import spearmanr
from warcio.archiveiterator import ArchiveIterator

from demo import config
from demo import crawls as crawls_module
from demo.config import CLASSIFIERS, CRAWLS, DRIFTED_CRAWL, GRAPH_RELEASES, SAMPLE_CRAWL
from demo.generate import sample_truth
from tests.fixtures.crawls import SEED, Crawl

JAVA_NUMBER = re.compile(r"^-?\d+\.\d+(E-?\d+)?$")
URL_COLUMNS = [
    ("url_surtkey", "string"),
    ("fetch_time", "timestamp[us, tz=UTC]"),
    ("in_gneissweb", "bool"),
    ("gneissweb_technology", "double"),
    ("gneissweb_science", "double"),
    ("gneissweb_education", "double"),
    ("gneissweb_medical", "double"),
]
HOST_COLUMNS = [
    ("surt_host_name", "string"),
    ("gneissweb_technology", "double"),
    ("gneissweb_science", "double"),
    ("gneissweb_education", "double"),
    ("gneissweb_medical", "double"),
    ("in_gneissweb", "bool"),
]
CATEGORIES = [name for name, _ in HOST_COLUMNS[1:5]]
RANKS_COLUMNS = (
    "{'harmonicc_pos': 'BIGINT', 'harmonicc_val': 'DOUBLE', 'pr_pos': 'BIGINT', "
    "'pr_val': 'DOUBLE', 'host_rev': 'VARCHAR'}"
)


def _warc_records(crawl: Crawl) -> list[dict]:
    records = []
    for path in sorted((crawl.root / "warc" / SAMPLE_CRAWL).glob("*.warc.gz")):
        with path.open("rb") as handle:
            for record in ArchiveIterator(handle, check_digests=True):
                headers = record.rec_headers
                http = record.http_headers
                records.append(
                    {
                        "file": path.name,
                        "type": record.rec_type,
                        "id": headers.get_header("WARC-Record-ID"),
                        "uri": headers.get_header("WARC-Target-URI"),
                        "date": headers.get_header("WARC-Date"),
                        "status": http.get_statuscode() if http else None,
                        "mime": (http.get_header("Content-Type") or "") if http else "",
                        "payload": record.content_stream().read(),
                        "digest_ok": record.digest_checker.passed is not False,
                    }
                )
    return records


@pytest.fixture(scope="module")
def tiny_records(tiny_crawl: Crawl) -> list[dict]:
    return _warc_records(tiny_crawl)


def _ranks(crawl: Crawl, release: str) -> duckdb.DuckDBPyRelation:
    path = crawl.root / "webgraph" / release / f"{release}-host-ranks.txt.gz"
    return duckdb.sql(
        f"select * from read_csv('{path}', delim='\\t', header=true, columns={RANKS_COLUMNS})"
    )


# ------------------------------------------------------------------------------------ WARC


def test_warc_records_are_common_crawl_shaped(tiny_crawl: Crawl, tiny_records: list[dict]):
    kinds = Counter(record["type"] for record in tiny_records)
    truth = tiny_crawl.truth["warc"]["captures_by_kind"]
    captures = truth["html_200"] + truth["non_html"] + truth["non_200"]
    assert kinds["warcinfo"] == tiny_crawl.truth["scale"]["warc_files"]
    assert kinds["response"] == captures
    assert kinds["request"] == captures + truth["revisit"]  # a revisit has its request too
    assert kinds["metadata"] == captures
    assert kinds["revisit"] == truth["revisit"] == 1
    assert all(record["digest_ok"] for record in tiny_records)
    html_200 = [
        r
        for r in tiny_records
        if r["type"] == "response" and r["status"] == "200" and r["mime"].startswith("text/html")
    ]
    assert len(html_200) == truth["html_200"] == tiny_crawl.truth["documents"]["count"]
    assert len({r["id"] for r in html_200}) == len(html_200)
    statuses = Counter(r["status"] for r in tiny_records if r["type"] == "response")
    assert set(statuses) - {"200"}, "some non-200 responses"
    mimes = {r["mime"].split(";")[0] for r in tiny_records if r["type"] == "response"}
    assert {"text/html", "application/pdf"} <= mimes


def test_every_warc_record_is_its_own_gzip_member(tiny_crawl: Crawl, tiny_records: list[dict]):
    members = 0
    for path in (tiny_crawl.root / "warc" / SAMPLE_CRAWL).glob("*.warc.gz"):
        data = path.read_bytes()
        while data:
            decompressor = zlib.decompressobj(16 + zlib.MAX_WBITS)
            decompressor.decompress(data)
            assert decompressor.eof
            data = decompressor.unused_data
            members += 1
    assert members == len(tiny_records)


def test_metadata_records_carry_cld2_languages(tiny_records: list[dict]):
    metadata = [r for r in tiny_records if r["type"] == "metadata"]
    languages = Counter()
    for record in metadata:
        fields = dict(
            line.split(": ", 1) for line in record["payload"].decode().splitlines() if ": " in line
        )
        assert "fetchTimeMs" in fields
        if "languages-cld2" in fields:
            parsed = json.loads(fields["languages-cld2"])
            languages[parsed["languages"][0]["code"]] += 1
    assert languages["en"] > 0
    assert len(languages) >= 4, languages


def test_legacy_charset_pages_decode(tiny_records: list[dict]):
    legacy = [
        r
        for r in tiny_records
        if r["type"] == "response"
        and re.search(r"charset=(windows-1251|shift_jis|gb18030)", r["mime"], re.I)
    ]
    assert legacy, "some pages are served in a legacy charset"
    for record in legacy:
        charset = record["mime"].split("charset=")[1].strip()
        text = record["payload"].decode(charset)
        assert "<html" in text
        with pytest.raises(UnicodeDecodeError):
            record["payload"].decode("utf-8")


def test_warc_pages_are_annotated_under_their_surt_key_and_warc_date(
    tiny_crawl: Crawl, tiny_records: list[dict], url_rows, expected_surtkey
):
    """Each HTML page of the WARC sample is a URL-level annotation row of the sample crawl, keyed
    as Common Crawl keys them (url_surtkey + fetch_time = WARC-Date), with its true scores."""
    rows = url_rows(tiny_crawl, SAMPLE_CRAWL).set_index(["url_surtkey", "fetch_time"])
    assert rows.index.is_unique
    _, documents, pages = sample_truth(SEED, "tiny")
    truth = dict(zip(pages.record_id.to_pylist(), documents.true_score, strict=True))
    column = {spec.name: index for index, spec in enumerate(CLASSIFIERS)}
    html = [
        r
        for r in tiny_records
        if r["type"] == "response" and r["status"] == "200" and r["mime"].startswith("text/html")
    ]
    assert len(html) == tiny_crawl.truth["documents"]["count"] == len(truth)
    www = 0
    for record in html:
        key = expected_surtkey(record["uri"])
        when = pd.Timestamp(datetime.strptime(record["date"], "%Y-%m-%dT%H:%M:%SZ"), tz=UTC)
        row = rows.loc[(key, when)]
        scores = truth[record["id"]]
        assert row["in_gneissweb"] == (scores[column["gneissweb_quality_demo"]] > 0.5)
        assert row["gneissweb_education"] == scores[column["fineweb_edu_demo"]]
        assert row["gneissweb_technology"] == scores[column["gneissweb_technology_demo"]]
        assert row["gneissweb_medical"] == scores[column["gneissweb_medical_demo"]]
        www += urlsplit(record["uri"]).hostname.startswith("www.")
    assert www > 0, "some sample hosts are www. hosts, whose SURT key drops the www."


# ------------------------------------------------------------------------------- web graph


@pytest.mark.parametrize("release", GRAPH_RELEASES)
def test_ranks_file_is_common_crawl_format(tiny_crawl: Crawl, release: str):
    path = tiny_crawl.root / "webgraph" / release / f"{release}-host-ranks.txt.gz"
    with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
        header = handle.readline()
        rows = [line.rstrip("\n").split("\t") for line in handle]
    assert header == "#harmonicc_pos\t#harmonicc_val\t#pr_pos\t#pr_val\t#host_rev\n"
    assert all(len(row) == 5 for row in rows)
    assert all(JAVA_NUMBER.match(row[1]) and JAVA_NUMBER.match(row[3]) for row in rows)
    ranks = _ranks(tiny_crawl, release).df()
    n = len(ranks)
    assert list(ranks["harmonicc_pos"]) == list(range(1, n + 1))
    assert sorted(ranks["pr_pos"]) == list(range(1, n + 1))
    assert (np.diff(ranks["harmonicc_val"]) <= 0).all()
    by_pr = ranks.sort_values("pr_pos")
    assert (np.diff(by_pr["pr_val"]) <= 0).all()
    assert ranks["pr_val"].sum() == pytest.approx(1.0, abs=1e-9)
    assert not ranks["host_rev"].str.contains(",").any()


@pytest.mark.parametrize("release", GRAPH_RELEASES)
def test_ranks_agree_with_edges(tiny_crawl: Crawl, release: str):
    """Harmonic centrality and PageRank recomputed from the edges with networkx."""
    folder = tiny_crawl.root / "webgraph" / release
    with gzip.open(folder / f"{release}-host-vertices.txt.gz", "rt") as handle:
        vertices = [line.rstrip("\n").split("\t") for line in handle]
    with gzip.open(folder / f"{release}-host-edges.txt.gz", "rt") as handle:
        edges = [tuple(map(int, line.split("\t"))) for line in handle]
    ids = [int(v[0]) for v in vertices]
    names = [v[1] for v in vertices]
    assert ids == list(range(len(ids)))
    assert names == sorted(names)
    assert edges == sorted(edges) and len(set(edges)) == len(edges)
    assert all(a != b for a, b in edges)
    graph = nx.DiGraph()
    graph.add_nodes_from(ids)
    graph.add_edges_from(edges)
    harmonic = nx.harmonic_centrality(graph)
    pagerank = nx.pagerank(graph, alpha=0.85, tol=1e-13, max_iter=1000)
    ranks = _ranks(tiny_crawl, release).df().set_index("host_rev")
    for node, name in zip(ids, names, strict=True):
        assert ranks.loc[name, "harmonicc_val"] == pytest.approx(harmonic[node], rel=1e-6)
        assert ranks.loc[name, "pr_val"] == pytest.approx(pagerank[node], rel=1e-6, abs=1e-12)


def test_graph_releases_differ_a_little(tiny_crawl: Crawl):
    first = _ranks(tiny_crawl, GRAPH_RELEASES[0]).df().set_index("host_rev")
    second = _ranks(tiny_crawl, GRAPH_RELEASES[1]).df().set_index("host_rev")
    common = first.index.intersection(second.index)
    rho = spearmanr(first.loc[common, "harmonicc_val"], second.loc[common, "harmonicc_val"])[0]
    assert 0.8 < rho < 0.99


# ------------------------------------------------------------------------------ host index


def test_host_index_has_a_row_per_graph_host_per_crawl(tiny_crawl: Crawl):
    folder = tiny_crawl.root / "host-index"
    assert sorted(p.name for p in folder.iterdir()) == [f"crawl={crawl}" for crawl in CRAWLS]
    con = duckdb.connect()
    con.sql(
        f"create view host_index as select * from read_parquet('{folder}/*/*.parquet', "
        "hive_partitioning = true, union_by_name = true)"
    )
    per_crawl = dict(con.sql("select crawl, count(*) from host_index group by all").fetchall())
    release = GRAPH_RELEASES[0]
    with gzip.open(
        tiny_crawl.root / "webgraph" / release / f"{release}-host-vertices.txt.gz", "rt"
    ) as handle:
        graph_hosts = {line.rstrip("\n").split("\t")[1].replace(".", ",") for line in handle}
    assert per_crawl == dict.fromkeys(CRAWLS, len(graph_hosts))
    sample = con.sql(
        f"select surt_host_name, fetch_200, nutch_numRecords, nutch_fetched from host_index "
        f"where crawl = '{SAMPLE_CRAWL}'"
    ).df()
    assert set(sample["surt_host_name"]) == graph_hosts
    assert (sample["fetch_200"] == 0).any(), "hosts in the graph but not crawled have rows"
    assert (sample["nutch_fetched"] <= sample["nutch_numRecords"]).mean() > 0.95
    assert sample["surt_host_name"].is_unique


def test_one_host_index_partition_drifts(tiny_crawl: Crawl):
    folder = tiny_crawl.root / "host-index"
    schemas = {
        crawl: pq.read_schema(folder / f"crawl={crawl}" / "part-00000.parquet") for crawl in CRAWLS
    }
    wanted = {
        "surt_host_name",
        "url_host_registered_domain",
        "url_host_tld",
        "hcrank",
        "prank",
        "hcrank10",
        "prank10",
        "fetch_200",
        "fetch_200_lote",
        "nutch_numRecords",
        "nutch_fetched",
        "nutch_unfetched",
        "nutch_gone",
    }
    for crawl, schema in schemas.items():
        assert wanted <= set(schema.names)
        assert "crawl" not in schema.names
        if crawl == DRIFTED_CRAWL:
            assert "fetch_200_lote_pct" not in schema.names
            assert str(schema.field("nutch_numRecords").type) == "int64"
        else:
            assert "fetch_200_lote_pct" in schema.names
            assert str(schema.field("nutch_numRecords").type) == "int32"
            assert str(schema.field("hcrank").type) == "double"
    assert schemas[DRIFTED_CRAWL].names != schemas[SAMPLE_CRAWL].names


def test_url_annotations_are_common_crawls_url_level_format(
    tiny_crawl: Crawl, url_rows, expected_surtkey
):
    """Columns, order and types of gneissweb-annotation-url-testing-v1; the crawl only in the
    Hive folder; SURT keys of hosts of the crawl; capture times within the crawl's fetch."""
    folder = tiny_crawl.root / "gneissweb-annotations" / "urls"
    assert sorted(p.name for p in folder.iterdir()) == [f"crawl={crawl}" for crawl in CRAWLS]
    hosts = pq.read_table(
        tiny_crawl.root / "host-index" / f"crawl={SAMPLE_CRAWL}" / "part-00000.parquet",
        columns=["surt_host_name"],
    )["surt_host_name"].to_pylist()
    sample_hosts = {
        expected_surtkey(url).split(")")[0] for url in sample_truth(SEED, "tiny")[2].url.to_pylist()
    }
    for crawl in CRAWLS:
        parts = sorted((folder / f"crawl={crawl}").iterdir())
        assert [p.name for p in parts] == [f"part-{i:05d}.parquet" for i in range(len(parts))]
        for part in parts:
            schema = pq.read_schema(part)
            assert [(f.name, str(f.type)) for f in schema] == URL_COLUMNS, part
        rows = url_rows(tiny_crawl, crawl)
        assert (
            len(rows)
            == next(c for c in tiny_crawl.truth["coverage"] if c["crawl"] == crawl)[
                "annotated_page_count"
            ]
        )
        assert not rows.duplicated(["url_surtkey", "fetch_time"]).any()
        assert rows["url_surtkey"].str.fullmatch(r"[a-z0-9-]+(,[a-z0-9-]+)+\)/\S*").all()
        assert not rows["surt_host_name"].str.endswith(",www").any()
        assert set(rows["surt_host_name"]) <= set(hosts) | sample_hosts
        start = pd.Timestamp(crawls_module.crawl_start(crawl))
        assert rows["fetch_time"].between(start, start + pd.Timedelta(days=14)).all()
        assert (rows["fetch_time"].dt.microsecond == 0).all()
        for name in CATEGORIES:
            assert rows[name].between(0, 1, inclusive="neither").all()
        assert 0.05 < rows["in_gneissweb"].mean() < 0.4


def test_crawls_start_two_weeks_before_their_name_week():
    assert crawls_module.crawl_start("CC-MAIN-2024-10") == datetime(2024, 2, 20, tzinfo=UTC)
    assert crawls_module.crawl_start("CC-MAIN-2021-04") == datetime(2021, 1, 12, tzinfo=UTC)
    assert crawls_module.crawl_start("CC-MAIN-2023-50") == datetime(2023, 11, 28, tzinfo=UTC)


def test_host_annotations_are_the_url_rows_aggregated(tiny_crawl: Crawl, url_rows):
    """gneissweb-annotation-host-testing-v1's columns; each host's scores the mean of its URL
    rows, its in_gneissweb flag their bool_or (our reading of the card's host-level flag)."""
    folder = tiny_crawl.root / "gneissweb-annotations" / "hosts"
    assert sorted(p.name for p in folder.iterdir()) == [f"crawl={crawl}" for crawl in CRAWLS]
    for crawl in CRAWLS:
        assert [p.name for p in (folder / f"crawl={crawl}").iterdir()] == ["part-00000.parquet"]
        path = folder / f"crawl={crawl}" / "part-00000.parquet"
        assert [(f.name, str(f.type)) for f in pq.read_schema(path)] == HOST_COLUMNS
        hosts = pq.read_table(path).to_pandas()
        assert list(hosts["surt_host_name"]) == sorted(hosts["surt_host_name"])
        assert hosts["surt_host_name"].is_unique
        expected = (
            url_rows(tiny_crawl, crawl)
            .groupby("surt_host_name")
            .agg(
                **{name: (name, "mean") for name in CATEGORIES},
                in_gneissweb=("in_gneissweb", "any"),
            )
        )
        hosts = hosts.set_index("surt_host_name")
        assert list(hosts.index) == list(expected.index)
        for name in CATEGORIES:
            np.testing.assert_allclose(hosts[name], expected[name], rtol=1e-12)
        assert (hosts["in_gneissweb"] == expected["in_gneissweb"]).all()
        assert hosts["in_gneissweb"].any() and not hosts["in_gneissweb"].all()


def test_host_index_url_host_tld_is_the_last_label(tiny_crawl: Crawl):
    """As in Common Crawl's host index: url_host_tld is the host name's last label (uk), the
    registered domain keeps its public suffix (example.co.uk)."""
    for crawl in CRAWLS:
        table = pq.read_table(
            tiny_crawl.root / "host-index" / f"crawl={crawl}" / "part-00000.parquet",
            columns=["surt_host_name", "url_host_registered_domain", "url_host_tld"],
        ).to_pandas()
        assert (table["url_host_tld"] == table["surt_host_name"].str.split(",").str[0]).all()
        domain_tld = table["url_host_registered_domain"].str.rsplit(".", n=1).str[-1]
        assert (table["url_host_tld"] == domain_tld).all()
        multi = table[table["url_host_registered_domain"].str.count(r"\.") >= 2]
        assert len(multi) > 0, "some hosts are under a two-label public suffix"
        assert not table["url_host_tld"].str.contains(".", regex=False).any()
    suffixes = {tld.suffix for tld in config.TLDS}
    co_uk = table[table["url_host_registered_domain"].str.endswith(".co.uk")]
    assert len(co_uk) > 0 and (co_uk["url_host_tld"] == "uk").all()
    assert {d.split(".", 1)[1] for d in table["url_host_registered_domain"]} <= suffixes


def test_host_index_nutch_counts_add_up_as_nutchs_hostdb(tiny_crawl: Crawl):
    """numRecords is the sum of the six HostDb statuses (Nutch HostDatum.numRecords), except on
    the quirk rows reporting more fetched than known; a crawl archives at most what it fetched."""
    for crawl in CRAWLS:
        rows = pq.read_table(
            tiny_crawl.root / "host-index" / f"crawl={crawl}" / "part-00000.parquet"
        ).to_pandas()
        statuses = ["fetched", "unfetched", "gone", "notModified", "redirPerm", "redirTemp"]
        total = sum(rows[f"nutch_{name}"].astype("int64") for name in statuses)
        regular = rows["nutch_fetched"] <= rows["nutch_numRecords"]
        assert regular.mean() > 0.98
        assert (total[regular] == rows.loc[regular, "nutch_numRecords"]).all()
        assert (rows["fetch_200"] <= rows["nutch_fetched"]).all()
        crawled = rows["fetch_200"] > 0
        assert (rows.loc[crawled, "nutch_numRecords"] >= rows.loc[crawled, "fetch_200"]).all()


def test_demo_ranks_print_java_scientific_notation(demo_crawl: Crawl):
    release = GRAPH_RELEASES[0]
    path = demo_crawl.root / "webgraph" / release / f"{release}-host-ranks.txt.gz"
    with gzip.open(path, "rt") as handle:
        next(handle)
        pagerank = [line.split("\t")[3] for line in handle]
    assert any(re.fullmatch(r"\d\.\d+E-\d+", value) for value in pagerank)
    assert all(JAVA_NUMBER.match(value) for value in pagerank)


def test_the_demos_annotation_and_host_index_files_have_the_real_schemas(tiny_crawl: Crawl):
    """Written as the real-bytes fixtures (built from Common Crawl's own sources) state them."""
    import importlib.util

    def builder(relative: str):
        path = Path(__file__).resolve().parents[1] / "fixtures" / "real" / relative
        spec = importlib.util.spec_from_file_location(path.stem.replace("-", "_"), path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    formats = builder("annotations/make_fixtures.py")
    root = tiny_crawl.root / "gneissweb-annotations"
    for path in sorted(root.glob("urls/crawl=*/*.parquet")):
        assert pq.read_schema(path).remove_metadata() == formats.URL_SCHEMA, path
    for path in sorted(root.glob("hosts/crawl=*/*.parquet")):
        assert pq.read_schema(path).remove_metadata() == formats.HOST_SCHEMA, path
    v2 = builder("host-index/make_fixture.py").SCHEMA
    for path in sorted((tiny_crawl.root / "host-index").glob("crawl=*/*.parquet")):
        if "CC-MAIN-2021-04" in str(path):  # the partition whose schema drifts on purpose
            continue
        names = pq.read_schema(path).names
        assert sorted(names) == sorted(v2.names), path
        for name in names:
            assert pq.read_schema(path).field(name).type == v2.field(name).type, (path, name)
