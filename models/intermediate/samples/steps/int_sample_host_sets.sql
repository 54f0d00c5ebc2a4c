-- The host sets of the k-sample correlations (docs/definitions.md A5): `variable`, the
-- hosts with a page left after the first k; `fixed`, the hosts with enough pages for
-- every k.

select
    host_set_values.host_set_id,
    host_set_values.host_set
from (
    values
    (1, 'variable'),
    (2, 'fixed')
) as host_set_values (host_set_id, host_set)
