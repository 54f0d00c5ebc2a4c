"""Words of the demo pages, and how a document's true classifier scores are written into them.

Every page is a bag of real words of its language (from the frequency lists that the
``wordfreq`` package ships; the package itself is never imported) split into two kinds:

* **neutral words**, the bulk of the text;
* **marker words**: for each classifier a "low" and a "high" set, disjoint across classifiers.

A document whose true score on classifier c is ``t`` carries, among its marker slots for c, a
share ``f = clip((logit(t) + L) / 2L, 0, 1)`` of high markers. fastText averages word vectors,
so its logit is linear in ``f`` and therefore in ``logit(t)``: a model trained on documents
labelled with probability ``t`` is well specified, and its scores come out calibrated to the
planted ones (up to the rounding of marker counts and the training noise).

Every word has one role in all the demo's languages. Markers are taken only from words that are
not among another language's 1,000 most frequent words (Spanish and Portuguese, Japanese and
Chinese, French and German share many), so no marker of one language is a neutral word, or
another classifier's marker, of another: fastText learns one vector per word, and a word with
two roles gets a compromise weight that adds noise to every score it appears in.
"""

from __future__ import annotations

import gzip
import importlib.util
import math
from dataclasses import dataclass
from functools import cache
from itertools import islice
from pathlib import Path

import msgpack
import numpy as np

from demo.config import CLASSIFIERS, LANGUAGES

__all__ = [
    "LOGIT_RANGE",
    "MARKER_SHARE",
    "Vocabulary",
    "compose_document",
    "compose_document_with_scores",
    "marker_high_share",
    "vocabularies",
    "written_scores",
]

LOGIT_RANGE = 5.0  # L: logits beyond ±L are written as all-high or all-low markers
MARKER_SHARE = 0.07  # share of a document's words that are markers of one classifier
MARKERS_PER_SET = 12
_OTHER_LANGUAGE_WINDOW = 1000  # another language's most frequent words, which markers avoid
_CJK = frozenset({"ja", "zh"})

# Hand-picked English markers, so that English demo pages read as what they stand for.
_ENGLISH_MARKERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "dclm_demo": (
        (
            "lol",
            "omg",
            "dude",
            "sucks",
            "whatever",
            "yeah",
            "gonna",
            "wanna",
            "kinda",
            "awesome",
            "crap",
            "hey",
        ),
        (
            "explain",
            "answer",
            "question",
            "because",
            "therefore",
            "example",
            "reason",
            "means",
            "understand",
            "simply",
            "imagine",
            "basically",
        ),
    ),
    "fineweb_edu_demo": (
        (
            "celebrity",
            "gossip",
            "sale",
            "discount",
            "coupon",
            "horoscope",
            "lottery",
            "jackpot",
            "bonus",
            "promo",
            "deal",
            "offer",
        ),
        (
            "curriculum",
            "lesson",
            "students",
            "theorem",
            "hypothesis",
            "experiment",
            "photosynthesis",
            "equation",
            "historical",
            "molecule",
            "lecture",
            "textbook",
        ),
    ),
    "gneissweb_quality_demo": (
        (
            "click",
            "subscribe",
            "login",
            "cart",
            "checkout",
            "cookies",
            "banner",
            "popup",
            "ads",
            "sponsored",
            "shipping",
            "password",
        ),
        (
            "research",
            "analysis",
            "evidence",
            "methodology",
            "findings",
            "literature",
            "survey",
            "framework",
            "empirical",
            "scholarly",
            "review",
            "peer",
        ),
    ),
    "nemotron_quality_demo": (
        (
            "casino",
            "slots",
            "viagra",
            "loans",
            "replica",
            "cheap",
            "porn",
            "bet",
            "payday",
            "pills",
            "escort",
            "dating",
        ),
        (
            "article",
            "chapter",
            "introduction",
            "summary",
            "reference",
            "documentation",
            "guide",
            "tutorial",
            "encyclopedia",
            "glossary",
            "overview",
            "appendix",
        ),
    ),
    "gneissweb_medical_demo": (
        (
            "football",
            "recipe",
            "fashion",
            "travel",
            "movie",
            "music",
            "garden",
            "weather",
            "car",
            "holiday",
            "shopping",
            "pet",
        ),
        (
            "patient",
            "clinical",
            "diagnosis",
            "treatment",
            "symptoms",
            "therapy",
            "disease",
            "medication",
            "surgery",
            "hospital",
            "dosage",
            "chronic",
        ),
    ),
    "gneissweb_technology_demo": (
        (
            "poem",
            "wedding",
            "painting",
            "novel",
            "dance",
            "cooking",
            "knitting",
            "prayer",
            "poetry",
            "theatre",
            "sculpture",
            "opera",
        ),
        (
            "software",
            "algorithm",
            "database",
            "server",
            "compiler",
            "network",
            "python",
            "linux",
            "processor",
            "encryption",
            "kubernetes",
            "api",
        ),
    ),
}
_BLOCKED = frozenset({"shit", "fuck", "fucking", "mierda", "merde", "scheiße", "porra", "bitch"})


@dataclass(frozen=True)
class Vocabulary:
    """The words of one language.

    Attributes:
        language: ISO 639-1 code.
        neutral: words that carry no classifier signal, most frequent first.
        neutral_weights: Zipf-like sampling probabilities of ``neutral``.
        low: per classifier, the words of its low pole.
        high: per classifier, the words of its high pole.
    """

    language: str
    neutral: tuple[str, ...]
    neutral_weights: np.ndarray
    low: dict[str, tuple[str, ...]]
    high: dict[str, tuple[str, ...]]

    @property
    def is_cjk(self) -> bool:
        """Whether sentences end in '。' (the words are still space-separated, as segmented)."""
        return self.language in _CJK


def _wordfreq_words(language: str) -> list[str]:
    """Words of a language, most frequent first, from the lists bundled in ``wordfreq``."""
    spec = importlib.util.find_spec("wordfreq")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the wordfreq package (its word lists) is not installed")
    path = (
        Path(next(iter(spec.submodule_search_locations))) / "data" / f"small_{language}.msgpack.gz"
    )
    with gzip.open(path, "rb") as handle:
        buckets = msgpack.unpack(handle, raw=False)
    words = [word for bucket in buckets[1:] for word in bucket]
    keep_short = language in _CJK
    return [
        word
        for word in words
        if word.isalpha() and (keep_short or len(word) > 1) and word not in _BLOCKED
    ]


@cache
def vocabularies() -> dict[str, Vocabulary]:
    """The vocabulary of every demo language (deterministic: fixed lists, fixed slicing)."""
    english = _wordfreq_words("en")
    reserved = {w for pair in _ENGLISH_MARKERS.values() for pole in pair for w in pole}
    english_set = set(english[:2000]) | reserved
    words_of = {
        language: _wordfreq_words(language)
        if language == "en"
        else [word for word in _wordfreq_words(language) if word not in english_set]
        for language in LANGUAGES
    }
    result: dict[str, Vocabulary] = {}
    names = [spec.name for spec in CLASSIFIERS]
    for language in LANGUAGES:
        words = words_of[language]
        low: dict[str, tuple[str, ...]] = {}
        high: dict[str, tuple[str, ...]] = {}
        if language == "en":
            for name in names:
                low[name], high[name] = _ENGLISH_MARKERS[name]
            neutral = [word for word in words[:700] if word not in reserved][:450]
        else:
            # Content words from ranks 250 onwards that no other language uses become markers;
            # the most frequent 450 others (function words included) stay neutral.
            others = {
                word
                for other in LANGUAGES
                if other != language
                for word in words_of[other][:_OTHER_LANGUAGE_WINDOW]
            }
            exclusive = (word for word in words[250:] if word not in others)
            pool = list(islice(exclusive, 2 * MARKERS_PER_SET * len(names)))
            for index, name in enumerate(names):
                start = 2 * MARKERS_PER_SET * index
                low[name] = tuple(pool[start : start + MARKERS_PER_SET])
                high[name] = tuple(pool[start + MARKERS_PER_SET : start + 2 * MARKERS_PER_SET])
            markers = set(pool)
            neutral = [word for word in words if word not in markers][:450]
        ranks = np.arange(1, len(neutral) + 1, dtype=np.float64)
        weights = 1.0 / (ranks + 10.0)
        result[language] = Vocabulary(language, tuple(neutral), weights / weights.sum(), low, high)
    return result


def marker_high_share(true_score: np.ndarray) -> np.ndarray:
    """Share of a classifier's marker slots that are high markers, for true scores in (0, 1)."""
    clipped = np.clip(true_score, 1e-12, 1 - 1e-12)
    logit = np.log(clipped) - np.log1p(-clipped)
    return np.clip((logit + LOGIT_RANGE) / (2 * LOGIT_RANGE), 0.0, 1.0)


def written_scores(high_share: np.ndarray) -> np.ndarray:
    """The scores that shares of high markers spell out: the inverse of ``marker_high_share``."""
    return 1.0 / (1.0 + np.exp(-(2 * LOGIT_RANGE * high_share - LOGIT_RANGE)))


def compose_document(
    rng: np.random.Generator, vocabulary: Vocabulary, true_scores: np.ndarray, n_words: int
) -> tuple[str, list[str]]:
    """Write one document whose marker words encode its true score on every classifier.

    Args:
        rng: the random stream of this document.
        vocabulary: the document's language.
        true_scores: one true score in (0, 1) per classifier, in ``CLASSIFIERS`` order.
        n_words: words in the body.

    Returns:
        The title and the body paragraphs.
    """
    title, paragraphs, _ = compose_document_with_scores(rng, vocabulary, true_scores, n_words)
    return title, paragraphs


def compose_document_with_scores(
    rng: np.random.Generator, vocabulary: Vocabulary, true_scores: np.ndarray, n_words: int
) -> tuple[str, list[str], np.ndarray]:
    """``compose_document``, also returning the scores the document's markers spell out.

    Those are the true scores up to the rounding of the marker counts (and clipped at ±L):
    ``written_scores(high_count / slots)`` per classifier. Rounding a count moves the logit by
    less than ``2L / slots``: 0.31 for a page of 450 words (32 slots per classifier), 1.25 for a
    training document of 110 words (8 slots).

    Returns:
        The title, the body paragraphs, and one written score per classifier.
    """
    slots = max(4, round(MARKER_SHARE * n_words))
    shares = marker_high_share(true_scores)
    # Stochastic rounding keeps the expected share of high markers exactly f.
    high_counts = np.floor(shares * slots + rng.random(len(shares))).astype(np.int64)
    arrays = _arrays(vocabulary.language)
    n_classifiers = len(high_counts)
    # Marker slot j of classifier c takes a high word when j < high_count[c], else a low word.
    is_high = np.arange(slots)[None, :] < high_counts[:, None]
    pick = rng.integers(0, MARKERS_PER_SET, (n_classifiers, slots))
    pole_offset = np.where(is_high, MARKERS_PER_SET, 0)
    class_offset = (2 * MARKERS_PER_SET * np.arange(n_classifiers))[:, None]
    marker_ids = (class_offset + pole_offset + pick).reshape(-1)
    n_neutral = max(n_words - slots * n_classifiers, 10)
    neutral_ids = np.searchsorted(arrays.neutral_cdf, rng.random(n_neutral), side="right")
    neutral_ids = np.minimum(neutral_ids, len(arrays.neutral) - 1)
    words = np.concatenate([arrays.markers[marker_ids], arrays.neutral[neutral_ids]])
    rng.shuffle(words)
    title = _title(rng, vocabulary)
    paragraphs = _paragraphs(rng, words.tolist(), vocabulary.is_cjk)
    return title, paragraphs, written_scores(high_counts / slots)


@dataclass(frozen=True)
class _WordArrays:
    neutral: np.ndarray  # object array of neutral words
    neutral_cdf: np.ndarray  # cumulative sampling probabilities
    markers: np.ndarray  # object array: per classifier, low words then high words


@cache
def _arrays(language: str) -> _WordArrays:
    vocabulary = vocabularies()[language]
    markers = [
        word
        for spec in CLASSIFIERS
        for word in (*vocabulary.low[spec.name], *vocabulary.high[spec.name])
    ]
    return _WordArrays(
        neutral=np.asarray(vocabulary.neutral, dtype=object),
        neutral_cdf=np.cumsum(vocabulary.neutral_weights),
        markers=np.asarray(markers, dtype=object),
    )


def _title(rng: np.random.Generator, vocabulary: Vocabulary) -> str:
    neutral = vocabulary.neutral
    words = [neutral[i] for i in rng.integers(20, min(len(neutral), 300), rng.integers(3, 8))]
    title = " ".join(words)
    return title if vocabulary.is_cjk else title[:1].upper() + title[1:]


def _paragraphs(rng: np.random.Generator, words: list[str], cjk: bool) -> list[str]:
    """Cut words into sentences of 8-20 words and paragraphs of 3-7 sentences."""
    stop = "。" if cjk else "."
    cuts = np.cumsum(rng.integers(8, 21, len(words) // 8 + 1))
    cuts = cuts[cuts < len(words)].tolist()
    sentences = []
    for start, end in zip([0, *cuts], [*cuts, len(words)], strict=True):
        sentence = " ".join(words[start:end])
        if not cjk:
            sentence = sentence[:1].upper() + sentence[1:]
        sentences.append(sentence + stop)
    groups = np.cumsum(rng.integers(3, 8, len(sentences) // 3 + 1))
    groups = groups[groups < len(sentences)].tolist()
    return [
        " ".join(sentences[start:end])
        for start, end in zip([0, *groups], [*groups, len(sentences)], strict=True)
    ]


def expected_document_words(rng: np.random.Generator, count: int) -> np.ndarray:
    """Body lengths in words: log-normal around 450, between 200 and 1,500."""
    return np.clip(np.round(np.exp(rng.normal(math.log(450), 0.45, count))), 200, 1500).astype(int)
