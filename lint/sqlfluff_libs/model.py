"""`model` for sqlfluff's jinja templater: the node being linted, as far as macros ask.

sqlfluff renders ``is_incremental()`` as true (to lint an incremental model's incremental
branch), so macros/partitions.sql asks for ``model.name``; no name is in the var
``update_partitions`` when linting, and the model is linted as computing every crawl.
"""

name = "linted_model"  # dbt's node name
