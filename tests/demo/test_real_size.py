"""demo.real_size: one crawl's host index at a share of a real crawl's hosts, streamed in parts."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from demo.bench_inputs import _hc_values, coprime_multiplier
from demo.crawls import HOST_INDEX_SCHEMA
from demo.real_size import REAL_HOSTS, host_index, host_positions


@pytest.mark.parametrize("hosts", [1, 2, 7, 1000, 33_527, 335_267])
def test_positions_invert_the_ranks_files_placement(hosts: int):
    """Position p of the ranks file holds host (p − 1)·a mod N: host_positions is its inverse."""
    ids = np.arange(hosts, dtype=np.int64)
    positions = host_positions(ids, hosts)
    assert np.array_equal(np.sort(positions), np.arange(1, hosts + 1))
    assert np.array_equal((positions - 1) * coprime_multiplier(hosts) % hosts, ids)


def test_the_index_is_written_in_sorted_parts_of_the_v2_schema(tmp_path):
    fraction = 1e-5  # 3,353 hosts
    index = host_index(tmp_path, fraction, "CC-MAIN-2024-10", part_rows=1_000)
    hosts = round(REAL_HOSTS * fraction)
    assert (index.hosts, index.rows, len(index.parts), index.cached_parts) == (hosts, hosts, 4, 0)
    tables = [pq.read_table(path) for path in index.parts]
    assert all(table.schema.equals(HOST_INDEX_SCHEMA) for table in tables)
    assert [table.num_rows for table in tables] == [1_000, 1_000, 1_000, 353]
    for table in tables:  # sorted by SURT host name within a part, as the real index roughly is
        names = table.column("surt_host_name").to_pylist()
        assert names == sorted(names)
    every = pa.concat_tables(tables)
    assert pc.count_distinct(every.column("surt_host_name")).as_py() == hosts
    # each host's harmonic centrality is the ranks file's at its position: one value each
    hc = np.sort(every.column("hcrank").to_numpy())[::-1]
    expected = _hc_values(np.arange(1, hosts + 1), hosts).astype(np.float64)
    assert np.array_equal(hc, expected)
    assert index.folder.name == "crawl=CC-MAIN-2024-10"


def test_a_run_cut_short_resumes_from_its_finished_parts(tmp_path):
    first = host_index(tmp_path, 1e-5, part_rows=1_000)
    written = {path: path.stat().st_mtime_ns for path in first.parts}
    lost = pq.read_table(first.parts[2])
    first.parts[2].unlink()
    # what a killed run leaves: a part's temporary file (no process has its pid)
    stale = first.parts[2].parent / f".part-00002.parquet.{2**22 + 7}.tmp"
    stale.write_bytes(b"half a part")
    again = host_index(tmp_path, 1e-5, part_rows=1_000)
    assert (again.cached_parts, again.rows) == (3, first.rows)
    for path in (first.parts[0], first.parts[1], first.parts[3]):
        assert path.stat().st_mtime_ns == written[path]
    assert pq.read_table(again.parts[2]).equals(lost)  # the same part, written again
    assert not stale.exists()


@pytest.mark.parametrize("fraction", [0, -0.5, 1.5])
def test_a_share_outside_zero_to_one_is_refused(tmp_path, fraction: float):
    with pytest.raises(ValueError, match=r"must be in \(0, 1\]"):
        host_index(tmp_path, fraction)
