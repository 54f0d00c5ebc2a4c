"""The generator's own statistics (what truth.json reports) against independent references."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pingouin
import pytest

from demo.config import CLASSIFIERS
from demo.model import (
    ENGLISH_PAGES_ON_NON_ENGLISH_HOSTS,
    OTHER_PAGES_ON_ENGLISH_HOSTS,
    icc1_anova,
    score_scale_icc,
    solve_variance_split,
)


def test_icc1_equals_pingouin_on_balanced_data():
    rng = np.random.default_rng(1)
    hosts, raters = 40, 5
    values = np.round(rng.normal(size=hosts)[:, None] + rng.normal(size=(hosts, raters)), 1)
    frame = pd.DataFrame(
        {
            "host": np.repeat(np.arange(hosts), raters),
            "rater": np.tile(np.arange(raters), hosts),
            "score": values.ravel(),
        }
    )
    reference = pingouin.intraclass_corr(frame, targets="host", raters="rater", ratings="score")
    icc1 = reference.set_index("Type").loc["ICC(1,1)", "ICC"]  # pingouin 0.7 naming
    assert icc1_anova(frame["host"].to_numpy(), frame["score"].to_numpy()) == pytest.approx(
        icc1, abs=1e-9
    )


def test_icc1_equals_the_n0_formula_on_unequal_hosts_with_ties():
    rng = np.random.default_rng(2)
    sizes = np.array([1, 2, 2, 3, 7, 50, 400])
    groups = np.repeat(np.arange(len(sizes)), sizes)
    values = np.round(rng.normal(size=len(sizes))[groups] + rng.normal(size=len(groups)), 0)
    # ICC::ICCbare: var_a = (MSa - MSw) / ((N - sum n_i^2 / N) / (a - 1)); ICC = var_a/(var_a+MSw)
    a, n = len(sizes), len(values)
    means = np.array([values[groups == g].mean() for g in range(a)])
    msa = sum(sizes * (means - values.mean()) ** 2) / (a - 1)
    msw = sum(((values[groups == g] - means[g]) ** 2).sum() for g in range(a)) / (n - a)
    var_a = (msa - msw) / ((n - (sizes**2).sum() / n) / (a - 1))
    assert icc1_anova(groups, values) == pytest.approx(var_a / (var_a + msw), abs=1e-12)


def test_the_variance_split_plants_the_population_icc():
    """Pages in another language than their host's are part of the model (DCLM: shift 1.4)."""
    spec = next(spec for spec in CLASSIFIERS if spec.non_english_shift)
    share = solve_variance_split(spec, non_english_share=0.45)
    assert score_scale_icc(spec, share, 0.45) == pytest.approx(spec.icc, abs=1e-9)
    # Monte Carlo of draw_documents' model, a large balanced sample: within sampling error.
    rng = np.random.default_rng(3)
    hosts, pages = 20_000, 20
    non_english_host = rng.random(hosts) < 0.45
    switch = rng.random((hosts, pages))
    non_english_page = np.where(
        non_english_host[:, None],
        switch >= ENGLISH_PAGES_ON_NON_ENGLISH_HOSTS,
        switch < OTHER_PAGES_ON_ENGLISH_HOSTS,
    )
    latent = (
        spec.mu
        + spec.non_english_shift * non_english_page
        + spec.total_sd * np.sqrt(share) * rng.standard_normal(hosts)[:, None]
        + spec.total_sd * np.sqrt(1 - share) * rng.standard_normal((hosts, pages))
    )
    scores = 1 / (1 + np.exp(-latent))
    groups = np.repeat(np.arange(hosts), pages)
    assert icc1_anova(groups, scores.ravel()) == pytest.approx(spec.icc, abs=0.006)
    # Had every page its host's language, the same split would give a higher ICC: the mix
    # is part of the within-host variance.
    moved = non_english_host[:, None].astype(np.float64) - non_english_page
    host_only = 1 / (1 + np.exp(-(latent + spec.non_english_shift * moved)))
    assert icc1_anova(groups, host_only.ravel()) > icc1_anova(groups, scores.ravel()) + 0.006
