"""What every stage shares: the project's paths and its dbt runner.

``hostaware.paths`` is standard library only, so that ``ingest`` may import it; ``hostaware.dbt``
runs dbt and is for the stages after the lake (report, plan, demo, tests, benchmarks).
"""
