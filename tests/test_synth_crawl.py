"""The demo crawl, read back with the readers a user would use, against Common Crawl's formats.

Format details are checked on the tiny crawl; the planted properties on the demo crawl, from
the files themselves (host index, ranks, annotations) rather than from truth.json where possible.
"""

from __future__ import annotations

import csv
import gzip
import json
import re
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path

import duckdb
import networkx as nx
import numpy as np
import pyarrow.parquet as pq
import pytest
from scipy.stats import spearmanr
from warcio.archiveiterator import ArchiveIterator

from ingest.hosts import surt_host_name
from ingest.synth import crawls as crawls_module
from ingest.synth.config import CLASSIFIERS, CRAWLS, DRIFTED_CRAWL, GRAPH_RELEASES, SAMPLE_CRAWL
from ingest.synth.corpus import ANNOTATIONS
from ingest.synth.generate import synthesize
from tests.conftest import SEED, Crawl

REPO = Path(__file__).resolve().parents[1]
JAVA_NUMBER = re.compile(r"^-?\d+\.\d+(E-?\d+)?$")
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


def test_warc_pages_are_the_annotated_sample(tiny_crawl: Crawl, tiny_records: list[dict]):
    """Each HTML page's record id and URL is a GneissWeb annotation row of the sample crawl."""
    table = pq.read_table(
        tiny_crawl.root / "gneissweb-annotations" / f"crawl={SAMPLE_CRAWL}",
        columns=["id", "url"],
    )
    annotated = dict(zip(table["id"].to_pylist(), table["url"].to_pylist(), strict=True))
    pages = [
        r
        for r in tiny_records
        if r["type"] == "response" and r["status"] == "200" and r["mime"].startswith("text/html")
    ]
    assert all(annotated.get(r["id"]) == r["uri"] for r in pages)


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


def test_annotations_are_fineweb_rows_with_gneissweb_columns(tiny_crawl: Crawl):
    path = tiny_crawl.root / "gneissweb-annotations" / f"crawl={SAMPLE_CRAWL}"
    table = pq.read_table(path).to_pandas()
    assert {
        "id",
        "dump",
        "url",
        "url_surtkey",
        "date",
        "file_path",
        "language",
        "cosmo_fastText_score",
        "dclm_fastText_score",
        "medical_label",
        "technology_computing_label",
        "education_label",
        "science_label",
        "mcalpine_eflaw_textstat",
        "tokens_per_doc_num_chars",
    } <= set(table.columns)
    assert (table["id"].str.len() == 47).all() and table["id"].is_unique
    assert (table["dump"] == SAMPLE_CRAWL).all()
    assert ((table["cosmo_fastText_score"] > 0.5) == (table["cosmo_fastText_label"] == "hq")).all()
    assert table["cosmo_fastText_score"].between(0, 1).all()
    hosts = table["url"].map(surt_host_name)
    assert (table["url_surtkey"].str.split(")").str[0] == hosts).all()


# -------------------------------------------------------------------- corpus and registry


def test_registry_matches_the_seed(tiny_crawl: Crawl):
    written = (tiny_crawl.root / "classifier_registry.csv").read_text()
    assert written == (REPO / "seeds" / "classifier_registry.csv").read_text()


def test_training_corpus_has_a_label_per_classifier(tiny_crawl: Crawl):
    with gzip.open(tiny_crawl.root / "training" / "labelled_corpus.tsv.gz", "rt") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    header, body = rows[0], rows[1:]
    assert header == ["split", *(spec.name for spec in CLASSIFIERS), "text"]
    assert {row[0] for row in body} == {"train", "valid"}
    for column, spec in enumerate(CLASSIFIERS, start=1):
        labels = [row[column].split() for row in body]
        assert {len(row) for row in labels} == {ANNOTATIONS}, "one label per annotation"
        assert {label for row in labels for label in row} == set(spec.labels)
        order = {label: rank for rank, label in enumerate(spec.labels)}
        assert all(row == sorted(row, key=order.get) for row in labels), "lowest label first"
    assert all(row[-1].strip() and "\n" not in row[-1] for row in body)


# ----------------------------------------------------------------- determinism, arguments


def _digest(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_same_seed_gives_identical_bytes(tiny_crawl: Crawl, tmp_path: Path):
    again = tmp_path / "again"
    synthesize(again, SEED, "tiny")
    assert _digest(again) == _digest(tiny_crawl.root)
    other = tmp_path / "other"
    synthesize(other, SEED + 1, "tiny")
    assert _digest(other)["truth.json"] != _digest(again)["truth.json"]


def _synth_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ingest", "synth", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scale", "huge"], "unknown scale 'huge'"),
        (["--seed", "-3"], "must be >= 0"),
        (["--seed", "x"], "not an integer"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(tmp_path: Path, args: list[str], message: str):
    result = _synth_cli("--out", str(tmp_path / "out"), *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_non_empty_out_needs_force(tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    result = _synth_cli("--out", str(out), "--scale", "tiny")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"python -m ingest synth: error: --out {out} is not empty: pass --force to replace it"
    ]
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_a_failure_half_way_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    out = tmp_path / "raw"
    out.mkdir()
    (out / "old.txt").write_text("previous crawl")

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(crawls_module, "annotation_parts", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        synthesize(out, SEED, "tiny", force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["raw"]
    assert [p.name for p in out.iterdir()] == ["old.txt"]


# ------------------------------------------------------------------ planted truth (demo)


@pytest.fixture(scope="module")
def demo_hosts(demo_crawl: Crawl):
    """Per host of the sample crawl: host-index counts, centrality, annotation quality."""
    root = demo_crawl.root
    return duckdb.sql(
        f"""
        with host_index as (
            select * from read_parquet('{root}/host-index/crawl={SAMPLE_CRAWL}/*.parquet')
        ),
        pages as (
            select
                split_part(url_surtkey, ')', 1) as surt_host_name,
                count(*) as page_count,
                avg((cosmo_fastText_score > 0.5)::int) as hq_density,
                median(dclm_fastText_score) as dclm_median,
                median(cosmo_fastText_score) as quality_median,
                avg((language = 'en')::int) as english_share
            from read_parquet('{root}/gneissweb-annotations/crawl={SAMPLE_CRAWL}/*.parquet')
            group by all
        )
        select
            host_index.*,
            pages.page_count,
            pages.hq_density,
            pages.dclm_median,
            pages.quality_median,
            pages.english_share >= 0.5 as is_english
        from host_index
        inner join pages using (surt_host_name)
        """
    ).df()


def test_planted_icc_is_in_the_papers_range(demo_crawl: Crawl):
    for entry in demo_crawl.truth["classifiers"]:
        realised = entry["realised_icc1_true_scores"]["min_docs_3"]
        assert 0.43 <= entry["planted_icc1"] <= 0.62
        assert realised == pytest.approx(entry["planted_icc1"], abs=1e-3), entry["name"]
        # The sample-exact correction stays moderate: the population calibration does the work.
        assert 2 / 3 < entry["host_effect_scale"] < 3 / 2, entry["name"]


def test_language_mix_and_dclm_bias(demo_crawl: Crawl):
    hosts = demo_crawl.truth["hosts"]
    assert hosts["non_english_share_sample_hosts_ge3"] >= 0.30
    by_name = {entry["name"]: entry for entry in demo_crawl.truth["classifiers"]}
    dclm = by_name["dclm_demo"]["host_median_score_median"]
    edu = by_name["fineweb_edu_demo"]["host_median_score_median"]
    assert dclm["non_english"] > 1.8 * dclm["english"]
    assert 0.8 < edu["non_english"] / edu["english"] < 1.25


def test_centrality_is_weakly_related_to_quality(demo_hosts):
    pooled = spearmanr(demo_hosts["hcrank"], demo_hosts["quality_median"])[0]
    assert abs(pooled) <= 0.2
    dclm = spearmanr(demo_hosts["hcrank"], demo_hosts["dclm_median"])[0]
    english = demo_hosts[demo_hosts["is_english"]]
    dclm_english = spearmanr(english["hcrank"], english["dclm_median"])[0]
    assert -0.2 <= dclm < 0 < dclm_english
    by_language = demo_hosts.groupby("is_english")["hcrank"].median()
    assert by_language[True] > by_language[False], "English hosts are more central"


def test_coverage_follows_centrality_not_quality(demo_hosts, demo_crawl: Crawl):
    hosts = demo_hosts[(demo_hosts["nutch_numRecords"] > 0) & (demo_hosts["page_count"] >= 3)]
    coverage = np.minimum(hosts["nutch_fetched"] / hosts["nutch_numRecords"], 1.0)
    assert abs(spearmanr(coverage, hosts["hq_density"])[0]) <= 0.1
    assert spearmanr(coverage, hosts["hcrank"])[0] >= 0.3
    planted = {c["crawl"]: c for c in demo_crawl.truth["coverage"]}
    for crawl in CRAWLS:
        assert abs(planted[crawl]["planted_spearman_coverage_vs_quality"]) <= 0.1
        assert abs(planted[crawl]["realised_spearman_coverage_vs_latent_quality"]) <= 0.15


def test_demo_ranks_print_java_scientific_notation(demo_crawl: Crawl):
    release = GRAPH_RELEASES[0]
    path = demo_crawl.root / "webgraph" / release / f"{release}-host-ranks.txt.gz"
    with gzip.open(path, "rt") as handle:
        next(handle)
        pagerank = [line.split("\t")[3] for line in handle]
    assert any(re.fullmatch(r"\d\.\d+E-\d+", value) for value in pagerank)
    assert all(JAVA_NUMBER.match(value) for value in pagerank)


def test_tld_mix_and_heavy_tails(demo_crawl: Crawl, demo_hosts):
    tlds = demo_crawl.truth["hosts"]["graph_hosts_by_tld"]
    for suffix in (
        "com",
        "org",
        "net",
        "edu",
        "ac.uk",
        "gov",
        "uk",
        "de",
        "fr",
        "ru",
        "jp",
        "cn",
        "br",
    ):
        assert tlds[suffix] > 0, suffix
    pages = demo_crawl.truth["documents"]["pages_per_host_percentiles"]
    assert pages["50"] <= 6 and pages["100"] >= 100
    assert demo_hosts["nutch_numRecords"].max() >= 1000
    assert 15_000 <= demo_crawl.truth["documents"]["count"] <= 25_000
    assert (
        1_800
        <= demo_crawl.truth["hosts"]["by_role"]["sample_ge3"]
        + demo_crawl.truth["hosts"]["by_role"]["sample_small_1_2"]
        <= 2_200
    )


def _yield_at(hosts, order, budget_share: float) -> float:
    """HQ pages collected when whole hosts are taken in order until a page budget is spent."""
    ordered = hosts.loc[order]
    budget = budget_share * hosts["pages"].sum()
    before = ordered["pages"].cumsum() - ordered["pages"]
    taken = ((budget - before) / ordered["pages"]).clip(0, 1)
    return float((taken * ordered["hq"]).sum())


def test_centrality_ordering_gains_little_and_the_oracle_a_lot(demo_crawl: Crawl):
    """The paper's RQ2 shape at a 10% budget, on the planted scores of the sample crawl."""
    root = demo_crawl.root
    pages = pq.read_table(
        root / "gneissweb-annotations" / f"crawl={SAMPLE_CRAWL}",
        columns=["url_surtkey", "dclm_fastText_score", "cosmo_fastText_score", "education_score"],
    ).to_pandas()
    pages["surt_host_name"] = pages["url_surtkey"].str.split(")").str[0]
    ranks = (
        pq.read_table(
            root / "host-index" / f"crawl={SAMPLE_CRAWL}" / "part-00000.parquet",
            columns=["surt_host_name", "hcrank"],
        )
        .to_pandas()
        .set_index("surt_host_name")
    )
    ratios = {}
    for column in ("dclm_fastText_score", "cosmo_fastText_score", "education_score"):
        hosts = (
            pages.assign(is_hq=pages[column] > 0.5)
            .groupby("surt_host_name")
            .agg(pages=("is_hq", "size"), hq=("is_hq", "sum"))
            .query("pages >= 3")
            .join(ranks, how="inner")
        )
        random = 0.1 * hosts["hq"].sum()
        by_centrality = hosts.sort_values("hcrank", ascending=False, kind="stable").index
        by_density = (
            (hosts["hq"] / hosts["pages"]).sort_values(ascending=False, kind="stable").index
        )
        ratios[column] = (
            _yield_at(hosts, by_centrality, 0.1) / random,
            _yield_at(hosts, by_density, 0.1) / random,
        )
    assert ratios["dclm_fastText_score"][0] < 1.0, ratios
    for centrality, oracle in ratios.values():
        assert 0.7 <= centrality <= 1.8, ratios
        assert 4.0 <= oracle <= 8.0, ratios
