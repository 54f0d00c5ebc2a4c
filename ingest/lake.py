"""The Parquet lake's write protocol, shared by every ingest: its public face.

Layout under the lake folder:

* ``<table>/<partition>=<value>/part-<key>.parquet``: the rows of one input file in one
  partition. ``<key>`` is the first 20 hex digits of the input file's SHA-256, so a rerun
  writes the same names.
* ``_manifest/<table>/<key>.parquet``: one row per input file (``schemas.MANIFEST``): what was
  read, written and rejected by reason, the schema drift met, the parts written. It is written
  last, by rename: it is the commit record. Readers count only the parts a manifest row lists
  (:func:`committed_parts`), so a crash at any point leaves the lake consistent; a file
  without a manifest row is redone from scratch and its half-published parts are overwritten.
* ``_schemas/<table>/<partition>=_/empty.parquet`` and ``_schemas/_manifest/empty.parquet``:
  zero-row files with each table's schema. dbt sources read them beside the data, so a table
  that has no input yet (no edges were ingested, say) is an empty relation, not an error.

Parts are written under a temporary name (``.part-<key>.<pid>.tmp``, never matched by readers)
by a :class:`PartWriter`; :meth:`PartWriter.finish` hands the finished temporary parts back
(from a worker process, say) and :func:`commit_parts` renames them into place and then writes
the manifest row that commits them. Every ingest commits through :func:`commit_parts`.

What counts as committed has one definition, :func:`committed_parts`: a part file whose path
within the lake is one of the ``output_files`` of a manifest row (its key *and* its partition).
Staging models apply the same rule. Anything else under a table's folder is a leftover of an
interrupted run: a temporary file, or a part renamed into place whose manifest row was never
written (an "orphan"); :func:`prepare_tables` deletes both.

One writer per table folder: an ingest holds :func:`table_lock` on every table folder it writes
(``<lake>/_locks/<table>.lock``, an ``flock`` the kernel releases when the process dies, however
it dies); a second ingest of the same table waits for the first. Leftovers are removed only under
the lock, so an ingest never deletes another's temporary files.

An input file's identity is its checksum *and* where it went: a file committed under one crawl
given again under another is refused (naming the crawl it is in) unless the ingest is asked to
``replace`` it; a committed file whose parts are missing or changed size is ingested again when
it is given again, and reported otherwise (:func:`new_inputs`). A file ingested again keeps its
key, so its old copy stays committed until :func:`commit_parts` renames the new manifest row
over the old one; the old parts are deleted after that.

The protocol lives in modules along its seams; this module gathers their public names, so that
every ingest, test, bench and the demo import them from one place (``from ingest.lake import
…``, some thirty import sites): :mod:`ingest.lake_books` (the books of one input file and the
error type), :mod:`ingest.lake_parts` (writing parts, renaming them into place),
:mod:`ingest.lake_manifest` (the commit record, committed parts, leftovers, schema files),
:mod:`ingest.lake_inputs` (input files and skip-by-checksum), :mod:`ingest.lake_locks` (one
writer per table) and :mod:`ingest.lake_workers` (worker processes).
"""

from __future__ import annotations

from ingest.lake_books import IngestReport, LakeError
from ingest.lake_inputs import expand_inputs, new_inputs, sha256_of, warn_missing_parts
from ingest.lake_locks import table_lock
from ingest.lake_manifest import (
    commit_manifest,
    commit_parts,
    committed_parts,
    manifest_rows,
    missing_parts,
    prepare_tables,
    remove_leftovers,
    uncommit,
    write_schema_files,
)
from ingest.lake_parts import (
    FinishedPart,
    PartWriter,
    file_key,
    part_path,
    publish_parts,
    temporary_part,
)
from ingest.lake_workers import die_with_parent, files_failed, map_files, worker_pool

__all__ = [
    "FinishedPart",
    "IngestReport",
    "LakeError",
    "PartWriter",
    "commit_manifest",
    "commit_parts",
    "committed_parts",
    "die_with_parent",
    "expand_inputs",
    "file_key",
    "files_failed",
    "manifest_rows",
    "map_files",
    "missing_parts",
    "new_inputs",
    "part_path",
    "prepare_tables",
    "publish_parts",
    "remove_leftovers",
    "sha256_of",
    "table_lock",
    "temporary_part",
    "uncommit",
    "warn_missing_parts",
    "worker_pool",
    "write_schema_files",
]
