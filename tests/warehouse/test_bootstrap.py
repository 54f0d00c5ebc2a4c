"""The Poisson bootstrap's weights: Poisson(1), and the same in SQL as in ``reference``.

The weights ``reference.bootstrap`` draws for 200,000 (host, replicate) pairs have Poisson(1)'s
frequencies (a chi-square test), mean and variance, and two replicates' weights of one host
are independent (chi-square of their joint frequencies); macros/bootstrap.sql, run by dbt on
DuckDB, gives every pair of 300 host names (the tiny crawl's, and names with quotes, accents
and CJK) × replicates 0..30 the weight the reference gives it. The coverage bench
(bench/bench_bootstrap_coverage.py) runs on two draws.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import duckdb
import jinja2
import numpy as np
import pytest
from scipy import stats

from hostaware import dbt
from hostaware.paths import PROJECT
from reference.bootstrap import (
    MODULUS,
    THRESHOLDS,
    poisson_weights,
    seed_mean_spearman_influence,
    spearman_influence,
)
from reference.depth import (
    depth_influences,
    sample_then_deepen,
    sample_then_deepen_influence,
    water_fill_hq,
)
from tests.fixtures.warehouse import tiny_warehouse_or_skip

ODD_NAMES = ["com,o'brien", "de,münchen,www", "cn,北京", "com,a b", "", "org,x\\y"]


def test_the_weights_are_poisson_one():
    keys = [f"com,host{i}" for i in range(10_000)]
    weights = poisson_weights(keys, 20)
    assert (weights[:, 0] == 1).all()  # replicate 0 is the sample
    drawn = weights[:, 1:].ravel()
    assert abs(drawn.mean() - 1) < 4 * np.sqrt(1 / drawn.size)
    assert abs(drawn.var() - 1) < 0.02
    observed = np.bincount(np.minimum(drawn, 5), minlength=6)
    expected = np.append(stats.poisson.pmf(np.arange(5), 1), stats.poisson.sf(4, 1)) * drawn.size
    assert stats.chisquare(observed, expected).pvalue > 1e-3, (observed, expected)
    # one host's replicates are independent draws: no correlation between consecutive ones
    lagged = np.corrcoef(weights[:, 1:-1].ravel(), weights[:, 2:].ravel())[0, 1]
    assert abs(lagged) < 4 / np.sqrt(weights[:, 2:].size)
    assert THRESHOLDS.size == 12 and THRESHOLDS[-1] < MODULUS


@pytest.mark.parametrize(
    "probability",
    [1e-9, 1e-6, 0.001, 0.025, 0.05, 0.3, 0.5, 0.5000001, 0.9, 0.975, 0.995, 1 - 1e-9],
)
def test_the_normal_quantile_macro_equals_scipys(probability):
    """macros/bootstrap.sql's normal_quantile, rendered and run on DuckDB, against scipy.

    Both tails, the middle and the ends of the range it accepts: within 1e-15 / phi(z), what
    rounding Phi(z) to 1e-15 leaves of z (4e-15 at 95%, 6e-13 at 99.9%, 2e-7 at |z| = 6).
    """
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, extensions=["jinja2.ext.do"])
    environment.globals["exceptions"] = None  # reached only on a probability out of range
    macros = (PROJECT / "macros" / "bootstrap.sql").read_text()
    expression = environment.from_string(macros + "{{ normal_quantile(probability) }}").render(
        probability=probability
    )
    ((mine,),) = duckdb.sql(f"select {expression}").fetchall()
    theirs = stats.norm.ppf(probability)
    assert abs(mine - theirs) <= 1e-15 / stats.norm.pdf(theirs), (mine, theirs)


@pytest.mark.parametrize(("first", "second"), [(1, 2), (3, 17), (5, 200), (199, 200)])
def test_two_replicates_weights_are_independent(first, second):
    """A host's weights in two replicates: their joint frequencies are Poisson(1)'s product.

    Each host's uniforms are s + b t mod p, a line in b: any two of them are independent
    (the map (s, t) -> (s + b t, s + b' t) is one-to-one mod p), which is what makes two
    replicates of a statistic independent draws.
    """
    weights = poisson_weights([f"org,site{i}" for i in range(40_000)], second)
    pairs = np.minimum(weights[:, [first, second]], 3)
    observed = np.bincount(pairs[:, 0] * 4 + pairs[:, 1], minlength=16)
    marginal = np.append(stats.poisson.pmf(np.arange(3), 1), stats.poisson.sf(2, 1))
    expected = np.outer(marginal, marginal).ravel() * len(pairs)
    assert stats.chisquare(observed, expected).pvalue > 1e-3, (observed, expected)


def _weighted_spearman(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    """Spearman's rho of the sample in which point i appears w_i times, re-ranked: by scipy
    on the repeated points for whole weights, else from the weighted mid-ranks."""
    if w.dtype.kind == "i":
        return float(stats.spearmanr(np.repeat(x, w), np.repeat(y, w)).statistic)
    a = np.array([w[x < v].sum() + w[x == v].sum() / 2 for v in x])
    b = np.array([w[y < v].sum() + w[y == v].sum() / 2 for v in y])
    total = w.sum()
    da, db = a - (w * a).sum() / total, b - (w * b).sum() / total
    return float((w * da * db).sum() / np.sqrt((w * da * da).sum() * (w * db * db).sum()))


@pytest.mark.parametrize("seed", range(5))
def test_spearman_influence_is_the_derivative_in_a_hosts_weight(seed):
    """psi_h = d rho / d w_h at the sample, by central differences, with ties on both sides."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    x = rng.integers(0, 6, n).astype(float)
    y = rng.integers(0, 4, n) + 0.2 * x
    rho, influence = spearman_influence(x, y)
    assert rho == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert abs(influence.sum()) < 1e-12  # rho does not change when every weight scales
    step = 1e-6
    for h in range(n):
        bump = np.zeros(n)
        bump[h] = step
        above, below = _weighted_spearman(x, y, 1 + bump), _weighted_spearman(x, y, 1 - bump)
        derivative = (above - below) / (2 * step)
        assert derivative == pytest.approx(influence[h], abs=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_a_seed_means_influence_is_its_hosts_derivative_over_every_seed(seed):
    """The k-sample rho is a mean over seeds of the same hosts: weighting host h moves every
    seed's rho, so psi_h is the mean of its per-seed influences (central differences of the
    weighted seeds' mean); a seed with a constant variable is left out, as the mean does."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 40))
    pages = rng.integers(4, 12, n)
    density = rng.random(n)
    pairs = []
    for _ in range(4):  # a seed: each host's first 2 pages against the rest, ties aplenty
        first = rng.binomial(2, density) / 2
        rest = rng.binomial(pages - 2, density) / (pages - 2)
        pairs.append((first, rest))
    pairs.append((np.zeros(n), pairs[0][1]))  # undefined: left out
    rho, influence = seed_mean_spearman_influence(pairs)
    assert rho == pytest.approx(np.mean([stats.spearmanr(x, y)[0] for x, y in pairs[:4]]))
    step = 1e-6
    for h in range(n):
        bump = np.zeros(n)
        bump[h] = step
        above = np.mean([_weighted_spearman(x, y, 1 + bump) for x, y in pairs[:4]])
        below = np.mean([_weighted_spearman(x, y, 1 - bump) for x, y in pairs[:4]])
        assert (above - below) / (2 * step) == pytest.approx(influence[h], abs=1e-7)


def test_a_seed_means_standard_error_is_neither_the_seeds_mean_nor_independent_seeds():
    """Why the k-sample interval follows each host across the seeds: on 2,000 simulated hosts
    (heavy-tailed page counts, densities Beta(1.2, 1.8), k = 3 of 5 seeds' page orders) the
    seeds' standard errors averaged overstate the mean's (its hosts' influences averaged over
    the seeds) by more than 10%, and five independent seeds would understate it by more than
    10% (1.23x and 0.55x when written)."""
    rng = np.random.default_rng(3)
    pages = np.minimum(4 + (rng.pareto(1.2, 2_000) * 3).astype(int), 400)
    hq_pages = [rng.random(n) < p for n, p in zip(pages, rng.beta(1.2, 1.8, 2_000), strict=True)]
    pairs = []
    for _ in range(5):
        orders = [hq[rng.permutation(len(hq))] for hq in hq_pages]
        pairs.append(
            (np.array([o[:3].mean() for o in orders]), np.array([o[3:].mean() for o in orders]))
        )
    _, influence = seed_mean_spearman_influence(pairs)
    exact = np.sqrt(influence @ influence)
    per_seed = [spearman_influence(x, y)[1] for x, y in pairs]
    averaged = np.mean([np.sqrt(psi @ psi) for psi in per_seed])
    independent = np.sqrt(np.mean([psi @ psi for psi in per_seed]) / len(per_seed))
    assert averaged > 1.1 * exact
    assert independent < 0.9 * exact


def test_the_first_order_replicates_spread_as_the_re_ranked_ones():
    """First order is enough: on 2,000 tied points the linearized replicates' standard error
    is within 5% of the exact bootstrap's (each replicate's sample re-ranked; 0.02155 against
    0.02154 when written), and the two sets of replicates correlate above 0.99 (0.999)."""
    rng = np.random.default_rng(11)
    n = 2_000
    latent = rng.normal(size=n)
    x = np.round(latent + rng.normal(size=n), 1)
    y = np.round(0.3 * latent + rng.normal(size=n), 1)
    rho, influence = spearman_influence(x, y)
    weights = poisson_weights([f"com,point{i}" for i in range(n)], 200)[:, 1:]
    linear = rho + influence @ (weights - 1)
    exact = np.array([_weighted_spearman(x, y, weights[:, b]) for b in range(200)])
    assert np.std(linear, ddof=1) == pytest.approx(np.std(exact, ddof=1), rel=0.05)
    assert np.corrcoef(linear, exact)[0, 1] > 0.99


def _depth_hosts(seed: int, hosts: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pages (1-40, many hosts alike), HQ pages (densities tied at 0, 1 and between) and
    HC-depth weights (log-normal) of a depth universe."""
    rng = np.random.default_rng(seed)
    pages = rng.integers(1, 41, hosts)
    hq = rng.binomial(pages, rng.choice([0.0, 0.1, 0.5, 1.0], hosts))
    return pages, hq, rng.lognormal(0, 1, hosts)


def _depth_yields(pages, hq, hc, weights, shares) -> dict[str, np.ndarray]:
    """Each policy's yield with host h counted weights[h] times, from the fills themselves.

    A host counted w times is one host of w n pages, w HQ pages and HC-depth weight w hc (its
    copies fill together); the oracle's curve is the cumulated pages and HQ of the hosts by
    density, interpolated (a plain re-implementation of the greedy fill).
    """
    kept = weights > 0
    n, h, w = pages[kept] * weights[kept], hq[kept] * weights[kept], weights[kept]
    budgets = [share * n.sum() for share in shares]
    order = np.argsort(-(h / n), kind="stable")
    oracle = np.interp(budgets, np.r_[0, np.cumsum(n[order])], np.r_[0, np.cumsum(h[order])])
    return {
        "uniform_breadth": water_fill_hq(n, w, h, budgets),
        "hc_depth": water_fill_hq(n, hc[kept] * w, h, budgets),
        "oracle": oracle,
    }


DEPTH_SHARES = [0.0137, 0.1371, 0.5113, 0.8719]


@pytest.mark.parametrize("seed", range(4))
def test_depth_influences_are_the_yields_derivatives(seed):
    """psi_h = d Y / d w_h at the sample (the envelope theorem's), by central differences of
    the fills, for uniform breadth, HC depth and the oracle; sum_h psi_h = Y."""
    pages, hq, hc = _depth_hosts(seed, 50)
    names = [f"org,site{i}" for i in range(len(pages))]
    budgets = [share * pages.sum() for share in DEPTH_SHARES]
    influences = depth_influences(pages, hc, hq, names, DEPTH_SHARES, budgets)
    sample = _depth_yields(pages, hq, hc, np.ones(len(pages)), DEPTH_SHARES)
    step = 1e-6
    for policy, psi in influences.items():
        assert psi.sum(axis=1) == pytest.approx(sample[policy], rel=1e-9)
        for h in range(len(pages)):
            bump = np.zeros(len(pages))
            bump[h] = step
            above = _depth_yields(pages, hq, hc, 1 + bump, DEPTH_SHARES)[policy]
            below = _depth_yields(pages, hq, hc, 1 - bump, DEPTH_SHARES)[policy]
            derivative = (above - below) / (2 * step)
            assert derivative == pytest.approx(psi[:, h], abs=1e-6), (policy, h)


def test_depth_first_order_replicates_spread_as_the_refilled_ones():
    """First order is enough for the depth policies: over 200 Poisson replicates of 3,000
    hosts, each refilled with its weights, the linearized replicates' standard error is
    within 1% of the exact one at every budget and policy (0.9999-1.0034 when written) and
    the two correlate above 0.999 (0.9997-1.0)."""
    pages, hq, hc = _depth_hosts(7, 3_000)
    names = [f"org,site{i}" for i in range(len(pages))]
    budgets = [share * pages.sum() for share in DEPTH_SHARES]
    influences = depth_influences(pages, hc, hq, names, DEPTH_SHARES, budgets)
    sample = _depth_yields(pages, hq, hc, np.ones(len(pages)), DEPTH_SHARES)
    weights = poisson_weights(names, 200)[:, 1:]
    exact = [_depth_yields(pages, hq, hc, weights[:, b], DEPTH_SHARES) for b in range(200)]
    for policy, psi in influences.items():
        linear = sample[policy][:, None] + psi @ (weights - 1)
        refilled = np.array([replicate[policy] for replicate in exact]).T
        for budget in range(len(DEPTH_SHARES)):
            spread = np.std(refilled[budget], ddof=1)
            assert np.std(linear[budget], ddof=1) == pytest.approx(spread, rel=0.01)
            assert np.corrcoef(linear[budget], refilled[budget])[0, 1] > 0.999


def _deepening_hosts(seed: int, hosts: int, size: int):
    """A depth universe with each host's sample of min(n, k) pages: pages (1-40), HQ pages,
    the sample's HQ pages (hypergeometric) and mean score (ties among small samples)."""
    pages, hq, _ = _depth_hosts(seed, hosts)
    rng = np.random.default_rng(seed + 100)
    taken = np.minimum(pages, size)
    sample_hq = rng.hypergeometric(hq, pages - hq, taken)
    sample_mean = np.round(sample_hq / taken + rng.normal(0, 0.1, hosts), 1)
    return pages, hq, sample_hq, sample_mean


def _refilled_deepening(pages, hq, sample_hq, sample_mean, size, weights, shares, charged):
    """Sample-then-deepen's yield with host h counted weights[h] times, walked again: a host
    of w copies samples w min(n, k) pages (w times its sample's HQ) and is deepened as one of
    w times its pages left, in the sample's order (a plain re-implementation, names' md5
    aside: the ties fall by index)."""
    taken = np.minimum(pages, size)
    rest, rest_hq = weights * (pages - taken), weights * (hq - sample_hq)
    cost = (weights * taken).sum() if charged else 0.0
    density = np.where(taken > 0, sample_hq / taken, 0.0)
    order = [i for i in np.lexsort((np.arange(len(pages)), -sample_mean, -density)) if rest[i]]
    budgets = [share * (weights * pages).sum() - cost for share in shares]
    deepened = np.interp(
        budgets, np.r_[0, np.cumsum(rest[order])], np.r_[0, np.cumsum(rest_hq[order])]
    )
    return (weights * sample_hq).sum() + deepened


@pytest.mark.parametrize("charged", [True, False])
def test_sample_then_deepen_influences_sum_to_the_yield(charged):
    """sum_h psi_h = Y at every feasible budget (the sample's HQ, the deepened HQ and
    lambda (D - D) cancelling), NaN where the budget is below the sample's cost."""
    size = 3
    pages, hq, sample_hq, sample_mean = _deepening_hosts(1, 400, size)
    names = [f"org,site{i}" for i in range(len(pages))]
    shares = [0.05, *DEPTH_SHARES, 1.0]
    budgets = [Fraction(share).limit_denominator(10**6) * int(pages.sum()) for share in shares]
    psi = sample_then_deepen_influence(
        pages, hq, names, sample_hq, sample_mean, size, shares, budgets, charged
    )
    yields = sample_then_deepen(pages, hq, names, sample_hq, sample_mean, size, budgets, charged)
    feasible = ~np.isnan(yields)
    assert feasible.any() and not feasible.all()
    assert np.isnan(psi[~feasible]).all()
    assert psi[feasible].sum(axis=1) == pytest.approx(yields[feasible], rel=1e-9)
    assert psi[-1] == pytest.approx(hq)  # a budget of every page: each host's own HQ


def test_sample_then_deepen_first_order_spreads_as_the_refilled_one():
    """Over 200 Poisson replicates of 3,000 hosts, each deepened again with its weights, the
    linearized replicates' standard error is within 3% of the exact one at every budget,
    charged or free (0.984-1.011 when written; with the boundary host's own density as the
    slope instead of the window's, 0.914-1.032)."""
    size = 3
    pages, hq, sample_hq, sample_mean = _deepening_hosts(7, 3_000, size)
    names = [f"org,site{i}" for i in range(len(pages))]
    shares = [0.2, 0.35, 0.5113, 0.8719]
    budgets = [share * pages.sum() for share in shares]
    weights = poisson_weights(names, 200)[:, 1:]
    for charged in (True, False):
        psi = sample_then_deepen_influence(
            pages, hq, names, sample_hq, sample_mean, size, shares, budgets, charged
        )
        sample = psi.sum(axis=1)
        linear = sample[:, None] + psi @ (weights - 1)
        refilled = np.array([
            _refilled_deepening(
                pages, hq, sample_hq, sample_mean, size, weights[:, b], shares, charged
            )
            for b in range(200)
        ]).T  # fmt: skip
        ratio = np.std(linear, axis=1, ddof=1) / np.std(refilled, axis=1, ddof=1)
        assert ratio == pytest.approx(1.0, abs=0.03), (charged, ratio)


@pytest.mark.warehouse
def test_sql_draws_the_references_weights(tmp_path):
    home = tiny_warehouse_or_skip().parent
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as connection:
        names = [row[0] for row in connection.sql(
            "select distinct surt_host_name from int_hosts_profiled order by 1 limit 294"
        ).fetchall()]  # fmt: skip
    keys = names + ODD_NAMES
    literals = ", ".join("'" + key.replace("'", "''") + "'" for key in keys)
    sql = (
        "select keys.key, replicates.replicate, "
        "{{ bootstrap_weight(bootstrap_seed('keys.key', 0), bootstrap_seed('keys.key', 1),"
        " 'replicates.replicate') }} as weight "
        f"from (select unnest([{literals}]) as key) as keys "
        "cross join (select unnest(range(0, 31)) as replicate) as replicates"
    )
    result = dbt.run(
        ["show", "--quiet", "--inline", sql, "--limit", "-1", "--output", "json",
         "--target-path", str(tmp_path / "target")],
        home=home,
        warehouse=tmp_path / "w.duckdb",
        env={"DBT_LOG_PATH": str(tmp_path / "logs")},
    )  # fmt: skip
    shown = json.loads(result.stdout[result.stdout.index("{") :])["show"]
    sql_weights = {(row["key"], row["replicate"]): row["weight"] for row in shown}
    expected = poisson_weights(keys, 30)
    assert len(sql_weights) == len(keys) * 31
    differing = [
        (key, b, sql_weights[(key, b)], int(expected[i, b]))
        for i, key in enumerate(keys)
        for b in range(31)
        if sql_weights[(key, b)] != expected[i, b]
    ]
    assert not differing, differing[:10]
    assert expected[:, 1:].max() >= 3  # the draws reach past 0, 1 and 2


@pytest.mark.warehouse
def test_the_coverage_bench_runs_on_a_few_draws():
    """bench/bench_bootstrap_coverage.py, on two tiny draws: it prints a rate per row."""
    script = PROJECT / "bench" / "bench_bootstrap_coverage.py"
    result = subprocess.run(
        [sys.executable, str(script), "--draws", "2", "--scale", "tiny", "--replicates", "20",
         "--population", "4"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )  # fmt: skip
    lines = result.stdout.splitlines()
    second = next(i for i, line in enumerate(lines) if line.startswith("Coverage-quality rho"))
    icc, coverage_quality = lines[:second], lines[second:]
    assert icc[0].startswith(
        "ICC(1) 95% bootstrap intervals (percentiles of 20 replicates) over 2 draws"
    )
    assert coverage_quality[0].startswith(
        "Coverage-quality rho 95% bootstrap intervals (the normal limit) over 2 draws"
    )
    for section in (icc, coverage_quality):
        rows = table_rows(section)
        assert len(rows) == 18  # 6 classifiers x 3 thresholds; 6 crawls x 3 minimums
        for row in rows:
            assert int(row["draws"]) == 2 and float(row["coverage"]) in (0.0, 0.5, 1.0), rows
            assert float(row["mean_width"]) > 0
        assert section[-1].startswith(tuple(f"{n} of 18 rates" for n in range(19)))
    for row in table_rows(icc):
        assert 0 < float(row["planted"]) < 1
    for row in table_rows(coverage_quality):
        # the population's rho and the planted latent one, both printed
        assert -1 <= float(row["population_rho"]) <= 1
        assert -1 <= float(row["planted_latent"]) <= 1
        # the population is four draws' hosts
        assert int(row["population_hosts"]) > 2 * float(row["mean_hosts"])


def table_rows(section: list[str]) -> list[dict[str, str]]:
    """A section's table rows, by column name."""
    header = section[1].split()
    return [dict(zip(header, line.split(), strict=True)) for line in section[2:-1]]


@pytest.mark.warehouse
def test_the_linearization_bench_runs_on_the_tiny_warehouse():
    """bench/bench_bootstrap_linearization.py prints a row per order and budget."""
    warehouse = tiny_warehouse_or_skip()
    script = PROJECT / "bench" / "bench_bootstrap_linearization.py"
    result = subprocess.run(
        [sys.executable, str(script), "--warehouse", str(warehouse), "--replicates", "20"],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    lines = result.stdout.splitlines()
    assert lines[0].startswith("HQ collected, ") and "20 replicates" in lines[0]
    rows = [line.split() for line in lines[2:-1]]
    assert [row[0] for row in rows] == [
        p for p in ("hc", "pr", "cc_coverage", "oracle") for _ in "abc"
    ]
    for row in rows:
        exact, window, one_host = (float(value) for value in row[2:5])
        assert exact >= 0 and window >= 0 and one_host >= 0
        assert -1 <= float(row[5]) <= 1
