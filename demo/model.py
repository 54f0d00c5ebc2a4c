"""The generative model of the demo crawl: hosts, their latent quality, pages and crawl counts.

All draws come from one ``numpy.random.Generator`` per purpose, spawned from the seed, so that a
scale's hosts do not change when another part of the model changes. Nothing here writes files.

The model, per host h (every host of the web graph):

* a public suffix from the TLD mix, a language given the suffix, a name;
* two shared quality factors ``g = (g_edu, g_chat)`` and, per classifier c, a host effect
  ``u_hc = loadings_c · g + sqrt(1 - |loadings_c|²) · e_hc`` (standard normal);
* a link attractiveness ``a_h``: TLD popularity + English + a little quality + noise. It drives
  the web graph, hence harmonic centrality, hence (as in Common Crawl) crawl coverage.

Per page d of a sample host, the same structure within the host gives ``z_dc``, and the true
score is ``sigmoid(mu_c + shift_c·[non-English] + sb_c·u_hc + sw_c·z_dc)`` with ``sb_c, sw_c``
solved so that the score-scale ICC(1) is the planted one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import brentq

from demo.config import CLASSIFIERS, TLDS, ClassifierSpec, Scale
from ingest.hosts import normalise_host

__all__ = [
    "ENGLISH_PAGES_ON_NON_ENGLISH_HOSTS",
    "OTHER_PAGES_ON_ENGLISH_HOSTS",
    "ROLE_DANGLING",
    "ROLE_OTHER",
    "ROLE_SAMPLE",
    "ROLE_SMALL",
    "Documents",
    "Hosts",
    "draw_documents",
    "draw_hosts",
    "icc1_anova",
    "page_scores",
    "score_scale_icc",
    "solve_variance_split",
    "variance_splits",
]

ROLE_SAMPLE, ROLE_SMALL, ROLE_OTHER, ROLE_DANGLING = 0, 1, 2, 3
# Sample hosts left out of the web graph: the paper drops < 0.3% of hosts for this
# (docs/definitions.md, "2.1 Data regimes").
MISSING_FROM_GRAPH_SHARE = 0.0025
# Pages not in their host's language (draw_documents; the ICC calibration models them too).
ENGLISH_PAGES_ON_NON_ENGLISH_HOSTS = 0.05
OTHER_PAGES_ON_ENGLISH_HOSTS = 0.02

_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ra",
    "te",
    "su",
    "no",
    "vi",
    "den",
    "mar",
    "tor",
    "lin",
    "sol",
    "ber",
    "gan",
    "fel",
    "ro",
    "qui",
    "zen",
    "pa",
    "dor",
    "ell",
    "ix",
    "an",
    "um",
    "bri",
    "cor",
    "ta",
    "ven",
    "hol",
    "mun",
    "sky",
    "web",
    "net",
    "hub",
    "top",
    "go",
    "my",
    "the",
    "pro",
)
_SUBDOMAINS = (
    "blog",
    "shop",
    "news",
    "forum",
    "docs",
    "m",
    "wiki",
    "support",
    "en",
    "store",
    "community",
    "mail",
    "library",
    "research",
    "events",
)
_IDN_LABELS = {
    "de": ("bücher", "straße", "grün", "müller", "schön"),
    "ru": ("пример", "новости", "книги", "москва"),
    "ja": ("日本", "東京", "ニュース"),
    "zh": ("中文", "新闻", "北京"),
}


@dataclass
class Hosts:
    """Every host of the demo crawl, one entry per host in each array (index = host id).

    Host ids are in draw order, not in the web graph's sorted order.
    """

    host_name: np.ndarray  # object: the URL host, e.g. www.example.co.uk (punycode)
    surt_host_name: np.ndarray  # object: uk,co,example
    registered_domain: np.ndarray  # object: example.co.uk
    suffix: np.ndarray  # object: co.uk
    tld_index: np.ndarray  # int: index into config.TLDS
    language: np.ndarray  # object: ISO 639-1
    role: np.ndarray  # int8: ROLE_*
    in_graph: np.ndarray  # bool: in the first graph release (and the host index)
    page_count: np.ndarray  # int32: pages in the classified WARC sample (0 for non-sample)
    factors: np.ndarray  # float64 (H, 2): shared quality factors
    effects: np.ndarray  # float64 (H, C): host effects per classifier (standard normal)
    attractiveness: np.ndarray  # float64: log link attractiveness
    effect_scale: dict[str, float] = field(default_factory=dict)  # see draw_documents
    derived: dict[str, object] = field(default_factory=dict)  # arrays computed once from these

    @property
    def count(self) -> int:
        """Number of hosts."""
        return len(self.host_name)

    @property
    def is_english(self) -> np.ndarray:
        """Whether the host's primary language is English."""
        return self.language == "en"


@dataclass
class Documents:
    """Pages of the classified sample, one entry per page in each array."""

    host_id: np.ndarray  # int64 index into Hosts
    language: np.ndarray  # object
    true_score: np.ndarray  # float64 (D, C): true score per classifier, in (0, 1)

    @property
    def count(self) -> int:
        """Number of pages."""
        return len(self.host_id)


# --------------------------------------------------------------------------- ICC calibration


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def score_scale_icc(spec: ClassifierSpec, between_share: float, non_english_share: float) -> float:
    """Population ICC(1) of ``sigmoid(latent)`` scores, by Gauss–Hermite quadrature.

    The latent logit is ``mu + shift·L + sd·(sqrt(r)·u + sqrt(1-r)·z)`` with host effect u,
    within-host noise z (both standard normal) and page language L: a non-English host (share
    ``non_english_share``) writes a page in English with probability
    ``ENGLISH_PAGES_ON_NON_ENGLISH_HOSTS``, an English host a page in another language with
    probability ``OTHER_PAGES_ON_ENGLISH_HOSTS``, as ``draw_documents`` draws them. So a host's
    score is a two-component mixture whose spread adds to the within-host variance: leaving
    the page-level mix out had planted DCLM's (shift 1.4) at 0.46 where the draws realise
    0.445 (bench/bench_bootstrap_coverage.py). Between-host variance is the variance of the host
    mean score; within-host variance is the mean of the host's score variance.
    """
    nodes, weights = np.polynomial.hermite_e.hermegauss(60)
    weights = weights / weights.sum()
    sb = spec.total_sd * math.sqrt(between_share)
    sw = spec.total_sd * math.sqrt(1.0 - between_share)
    latent = spec.mu + sb * nodes[:, None] + sw * nodes[None, :]
    english, other = _sigmoid(latent), _sigmoid(latent + spec.non_english_shift)
    means, variances, masses = [], [], []
    for host_weight, other_pages in (
        (1.0 - non_english_share, OTHER_PAGES_ON_ENGLISH_HOSTS),
        (non_english_share, 1.0 - ENGLISH_PAGES_ON_NON_ENGLISH_HOSTS),
    ):
        if host_weight == 0:
            continue
        first = ((1.0 - other_pages) * english + other_pages * other) @ weights
        second = ((1.0 - other_pages) * english**2 + other_pages * other**2) @ weights
        means.append(first)
        variances.append(second - first**2)
        masses.append(host_weight * weights)
    mean = np.concatenate(means)
    mass = np.concatenate(masses)
    grand = mass @ mean
    between = mass @ (mean - grand) ** 2
    within = mass @ np.concatenate(variances)
    return float(between / (between + within))


def solve_variance_split(spec: ClassifierSpec, non_english_share: float) -> float:
    """The latent between-host share r whose score-scale ICC(1) equals ``spec.icc`` (bisection)."""
    low, high = 1e-4, 0.9999
    for _ in range(36):
        middle = 0.5 * (low + high)
        if score_scale_icc(spec, middle, non_english_share) < spec.icc:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def icc1_anova(groups: np.ndarray, values: np.ndarray) -> float:
    """One-way ANOVA ICC(1) with the unbalanced n0 correction, for truth.json.

    As docs/definitions.md defines it ("A2. ICC(1)").
    """
    return _GroupedIcc(groups)(values)


# --------------------------------------------------------------------------- hosts


def _mixed_effects(rng: np.random.Generator, factors: np.ndarray) -> np.ndarray:
    """Per classifier: loadings · factors + independent part, each column standard normal."""
    count = factors.shape[0]
    columns = []
    for spec in CLASSIFIERS:
        loading = np.asarray(spec.loadings)
        own = math.sqrt(max(1.0 - float(loading @ loading), 0.0))
        columns.append(factors @ loading + own * rng.standard_normal(count))
    return np.column_stack(columns)


def _host_names(
    rng: np.random.Generator, suffixes: np.ndarray, languages: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unique URL host names, registered domains and SURT host keys (vectorised).

    A registered-domain label is 2-5 syllables spelling a distinct integer in base
    ``len(_SYLLABLES)``, so labels never collide. A host is ``www.<domain>`` (55%), the bare
    domain (25%) or ``<sub>.<domain>``. About 3% of German, Russian, Japanese and Chinese
    domains get an internationalised label, written in punycode as crawlers record it.
    """
    count = len(suffixes)
    base = len(_SYLLABLES)
    lengths = np.array([2, 3, 4, 5])
    sizes = base**lengths
    # Distinct integers over all 2..5-syllable spellings: each is one label.
    codes = rng.choice(int(sizes.sum()), size=count, replace=False)
    length_index = np.searchsorted(np.cumsum(sizes), codes, side="right")
    codes = codes - np.concatenate([[0], np.cumsum(sizes)])[length_index]
    syllable_table = np.array(_SYLLABLES, dtype=f"<U{max(map(len, _SYLLABLES))}")
    label = np.full(count, "", dtype="<U25")
    for position in range(lengths.max()):
        digit = (codes // base**position) % base
        present = position < lengths[length_index]
        label = np.where(present, np.char.add(label, syllable_table[digit]), label)
    label = label.astype(object)
    idn = np.flatnonzero(np.isin(languages, list(_IDN_LABELS)) & (rng.random(count) < 0.03))
    picks = rng.integers(0, 10, len(idn))
    for index, pick in zip(idn, picks, strict=True):
        words = _IDN_LABELS[languages[index]]
        label[index] = normalise_host(words[pick % len(words)] + label[index])
    domain = label + "." + suffixes
    kind = rng.random(count)
    subdomain = np.array(_SUBDOMAINS, dtype=object)[rng.integers(0, len(_SUBDOMAINS), count)]
    host = np.where(
        kind < 0.55, "www." + domain, np.where(kind < 0.8, domain, subdomain + "." + domain)
    )
    reversed_suffix = {s: ",".join(reversed(s.split("."))) for s in set(suffixes)}
    surt = np.array([reversed_suffix[s] for s in suffixes], dtype=object) + "," + label
    surt = np.where(kind >= 0.8, surt + "," + subdomain, surt)
    return host.astype(object), domain.astype(object), surt.astype(object)


def _page_counts(rng: np.random.Generator, scale: Scale, role: np.ndarray) -> np.ndarray:
    """Heavy-tailed pages per sample host: floor(3·U^(-1/alpha)) capped; 1-2 for small hosts."""
    counts = np.zeros(len(role), dtype=np.int32)
    sample = role == ROLE_SAMPLE
    uniform = rng.random(int(sample.sum()))
    counts[sample] = np.minimum(
        np.floor(3.0 * uniform ** (-1.0 / scale.size_alpha)), scale.size_cap
    )
    small = role == ROLE_SMALL
    counts[small] = rng.integers(1, 3, int(small.sum()))
    return counts


def draw_hosts(rng: np.random.Generator, scale: Scale) -> Hosts:
    """Draw every host of the demo crawl (see the module docstring for the model)."""
    count = scale.graph_hosts
    shares = np.array([tld.share for tld in TLDS])
    tld_index = rng.choice(len(TLDS), size=count, p=shares / shares.sum())
    suffixes = np.array([TLDS[i].suffix for i in tld_index], dtype=object)
    language = np.empty(count, dtype=object)
    for index, tld in enumerate(TLDS):
        members = np.flatnonzero(tld_index == index)
        codes = list(tld.languages)
        probs = np.array([tld.languages[code] for code in codes])
        language[members] = np.array(codes, dtype=object)[
            rng.choice(len(codes), size=len(members), p=probs / probs.sum())
        ]
    host_name, domain, surt = _host_names(rng, suffixes, language)

    role = np.repeat(
        np.array([ROLE_SAMPLE, ROLE_SMALL, ROLE_OTHER, ROLE_DANGLING], dtype=np.int8),
        [scale.sample_hosts, scale.small_hosts, scale.other_crawled_hosts, scale.dangling_hosts],
    )
    rng.shuffle(role)
    factors = rng.standard_normal((count, 2))
    effects = _mixed_effects(rng, factors)
    popularity = np.array([tld.popularity for tld in TLDS])[tld_index]
    crawled = role != ROLE_DANGLING
    attractiveness = (
        popularity
        + 0.8 * (language == "en")
        + 0.25 * factors[:, 0]
        + 0.15 * factors[:, 1]
        + 0.6 * crawled
        + rng.standard_normal(count)
    )
    in_graph = np.ones(count, dtype=bool)
    sample = np.flatnonzero(role == ROLE_SAMPLE)
    missing = rng.choice(sample, size=round(MISSING_FROM_GRAPH_SHARE * len(sample)), replace=False)
    in_graph[missing] = False
    return Hosts(
        host_name=host_name,
        surt_host_name=surt,
        registered_domain=domain,
        suffix=suffixes,
        tld_index=tld_index,
        language=language,
        role=role,
        in_graph=in_graph,
        page_count=_page_counts(rng, scale, role),
        factors=factors,
        effects=effects,
        attractiveness=attractiveness,
    )


# --------------------------------------------------------------------------- documents


def non_english_document_share(hosts: Hosts) -> float:
    """Share of sample pages on non-English hosts (the ICC calibration's language mix)."""
    pages = hosts.page_count.astype(np.float64)
    return float(pages[~hosts.is_english].sum() / pages.sum())


def variance_splits(hosts: Hosts) -> dict[str, float]:
    """Latent between-host share per classifier, solved for the planted ICC."""
    share = non_english_document_share(hosts)
    return {spec.name: solve_variance_split(spec, share) for spec in CLASSIFIERS}


def draw_documents(
    rng: np.random.Generator,
    hosts: Hosts,
    splits: dict[str, float],
    match_planted_icc: bool = True,
) -> Documents:
    """Draw every page of the classified sample and its true score on every classifier.

    Pages are grouped by host in host-id order. A page is in its host's language, except that
    5% of a non-English host's pages are in English (and 2% of an English host's pages in
    another language), as real multilingual sites are.

    The calibration of ``splits`` plants the ICC of the population; a finite, heavy-tailed sample
    of hosts realises it only within a few hundredths. So that the sample's ICC is the planted
    one, each classifier's host effects are then scaled (``hosts.effect_scale``, close to 1) until
    the ICC(1) of the sample's true scores over hosts with at least 3 pages equals ``spec.icc``.
    Without ``match_planted_icc`` the sample is the population model's draw as it comes, its ICC
    off the planted one by its sampling error (bench/bench_bootstrap_coverage.py measures how
    often the bootstrap interval covers the planted value).
    """
    host_id = np.repeat(np.arange(hosts.count), hosts.page_count)
    count = len(host_id)
    language = hosts.language[host_id].copy()
    switch = rng.random(count)
    english_host = hosts.is_english[host_id]
    language[(~english_host) & (switch < ENGLISH_PAGES_ON_NON_ENGLISH_HOSTS)] = "en"
    other = english_host & (switch < OTHER_PAGES_ON_ENGLISH_HOSTS)
    language[other] = np.array(["de", "fr", "es"], dtype=object)[
        rng.integers(0, 3, int(other.sum()))
    ]
    within = _mixed_effects(rng, rng.standard_normal((count, 2)))
    non_english = (language != "en").astype(np.float64)
    keep = hosts.page_count[host_id] >= 3
    icc = _GroupedIcc(host_id[keep])
    for column, spec in enumerate(CLASSIFIERS if match_planted_icc else ()):
        host_part = hosts.effects[host_id[keep], column]

        def realised(
            factor: float,
            column: int = column,
            spec: ClassifierSpec = spec,
            host_part: np.ndarray = host_part,
        ) -> float:
            scores = _latent_scores(
                spec,
                splits[spec.name],
                factor * host_part,
                within[keep, column],
                non_english[keep],
            )
            return icc(scores)

        factor = brentq(lambda f, r=realised, t=spec.icc: r(f) - t, 0.2, 5.0, xtol=1e-7)
        hosts.effects[:, column] *= factor
        hosts.effect_scale[spec.name] = factor
    scores = page_scores(rng, hosts, host_id, language != "en", splits, within=within)
    return Documents(host_id=host_id, language=language, true_score=scores)


class _GroupedIcc:
    """ICC(1) with the n0 correction for many value vectors over one fixed grouping."""

    def __init__(self, groups: np.ndarray) -> None:
        _, self.inverse, self.sizes = np.unique(groups, return_inverse=True, return_counts=True)
        self.k, self.n = len(self.sizes), len(groups)
        self.n0 = (self.n - np.sum(self.sizes.astype(np.float64) ** 2) / self.n) / (self.k - 1)

    def __call__(self, values: np.ndarray) -> float:
        means = np.bincount(self.inverse, weights=values) / self.sizes
        ssb = float(np.sum(self.sizes * (means - values.mean()) ** 2))
        ssw = float(np.sum((values - means[self.inverse]) ** 2))
        msb, msw = ssb / (self.k - 1), ssw / (self.n - self.k)
        return (msb - msw) / (msb + (self.n0 - 1) * msw)


def _latent_scores(
    spec: ClassifierSpec,
    between_share: float,
    host_effect: np.ndarray,
    within_effect: np.ndarray,
    non_english: np.ndarray,
) -> np.ndarray:
    latent = (
        spec.mu
        + spec.non_english_shift * non_english
        + spec.total_sd * math.sqrt(between_share) * host_effect
        + spec.total_sd * math.sqrt(1.0 - between_share) * within_effect
    )
    return _sigmoid(latent)


def page_scores(
    rng: np.random.Generator,
    hosts: Hosts,
    host_id: np.ndarray,
    is_non_english: np.ndarray,
    splits: dict[str, float],
    within: np.ndarray | None = None,
) -> np.ndarray:
    """True scores (pages × classifiers) of pages on the given hosts, English or not.

    ``within`` (pages × classifiers, standard normal) is drawn from ``rng`` unless given.
    """
    if within is None:
        within = _mixed_effects(rng, rng.standard_normal((len(host_id), 2)))
    non_english = is_non_english.astype(np.float64)
    scores = np.empty((len(host_id), len(CLASSIFIERS)))
    for column, spec in enumerate(CLASSIFIERS):
        scores[:, column] = _latent_scores(
            spec, splits[spec.name], hosts.effects[host_id, column], within[:, column], non_english
        )
    return scores
