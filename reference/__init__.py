"""The analyses of docs/definitions.md in numpy, pandas and scipy, written once.

The tests compare the warehouse's marts with these functions on small and adversarial lakes;
the benchmarks time them against ``dbt build`` at paper scale. Nothing here reads SQL or a dbt
macro: every function is written from docs/definitions.md (its section names are cited).

Modules, by concern:

* ``config``: dbt_project.yml's vars and the seeds the analyses read.
* ``lake``: the committed rows of a lake (``ingest.lake.committed_parts``: the lake protocol's
  one definition of "committed") or of a built warehouse's staging views, as ``Inputs``.
* ``stats``: shared statistics (md5 orders, mid-ranks, grouped Pearson and Spearman,
  ``quantile_cont``).
* ``hosts``: A1 host statistics, host profiles (language stratum, TLD category), the host
  universe U_c.
* ``icc``: A2 ICC(1).
* ``correlations``: A3 centrality vs quality (Spearman, Kendall tau-b, weighted Spearman,
  weighted tau), A3b score by language, A3c classifier agreement, A3d rank stability.
* ``orderings``: A4 host orderings and their cumulative yields.
* ``samples``: the RQ3 pages (classified and annotated), the within-host sample order and
  A5 k-sample predictiveness.
* ``depth``: A6 depth policies (water-filling, greedy fills, sample-then-deepen).
* ``coverage``: A7-A12 coverage vs quality, uncrawled HQ, hidden gems, TLDs, bands.
* ``plan``: the crawl plan (plan_host_fetch_budget and plan_diversity).
* ``compare``: a mart against a reference frame, key by key, number by number;
  ``compare_parquet``: the same inside DuckDB, for the benchmarks' tables of millions of rows.
"""
