"""The crawl plan's command line and exports: ``python -m plan --budget N --out FILE``.

It reads marts and never rebuilds the shared warehouse: a what-if plan for another budget is
built by dbt (``hostaware.dbt``) on a scratch copy (``plan.crawl_plan``). The report keeps the
plan's figures (``report.sections.plan``).
"""
