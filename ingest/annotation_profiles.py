"""Annotation profiles: what each published annotation dataset holds and what its columns mean.

Quality annotations of Common Crawl pages come from several producers, and the same column name
means different things in each. The warehouse never guesses: every input file is read under one
explicit profile, detected from its columns (or named with ``--profile``), which says

* which columns the source has and which lake columns they fill,
* how a page's (or host's) quality signal is read from them,
* how its rows join to pages and hosts (the page key, the host key, the crawl).

What makes a page *high quality* under each profile (the rule and its threshold) is a table the
warehouse owns: the ``annotation_profiles`` seed (``seeds/annotation_profiles.csv``), so that a
threshold can change without re-ingesting. Its rows and :data:`PROFILES` name the same profiles
(a test checks it).

The profiles (sources in each profile's ``source``):

``cc_gneissweb_urls``
    Common Crawl URL-level GneissWeb annotations (``commoncrawl/gneissweb-annotation-url-
    testing-v1``; ``s3://commoncrawl/projects/gneissweb-annotation-testing-v1/urls/crawl=…/``):
    ``url_surtkey``, ``fetch_time``, ``in_gneissweb`` and the four ``gneissweb_<category>``
    scores; no ``id``, no ``url``. A page is keyed by ``url_surtkey`` + ``fetch_time`` within its
    crawl (the join keys of ``commoncrawl/cc-index-annotations`` ``examples/gneissweb-url/``);
    its host is the host part of the SURT key. Quality: ``in_gneissweb``, the page is in
    GneissWeb (IBM's Bloom filter of kept FineWeb ids).
``cc_gneissweb_hosts``
    Common Crawl host-level GneissWeb annotations (``…-host-testing-v1``; ``…/hosts/crawl=…/``):
    ``surt_host_name``, the four category scores and ``in_gneissweb``, keyed by
    ``surt_host_name`` + ``crawl``. The card calls ``in_gneissweb`` a "Boolean flag for GneissWeb
    inclusion"; at host level we read it as "the host has pages in GneissWeb". Lands in the lake
    table ``host_annotations``: it has no pages and no page counts.
``dpk_gneissweb``
    FineWeb rows annotated by IBM's data-prep-kit GneissWeb classification transform (column
    names of ``recipes/GneissWeb/GneissWeb.ipynb``: ``cosmo_fastText_label``/``_score`` for the
    GneissWeb quality annotator, ``medical_label``/``_score``, …). The transform stores the
    label without ``__label__`` and, as its score, the probability of the *predicted* label
    floored to 3 decimals (``transforms/language/gneissweb_classification/dpk_gneissweb_
    classification/classification_models.py``): a page labelled ``cc`` at 0.987 has
    P(hq) = 0.013. So P(hq) = score for ``hq``, 1 − score for ``cc``; a score below 0.5 cannot be
    a binary model's top probability and is rejected. Keyed by ``id`` (the WARC-Record-ID),
    crawl ``dump``, host from ``url``.
``fineweb_edu``
    FineWeb-Edu rows (``HuggingFaceFW/fineweb-edu``): ``score``, the classifier's 0–5 regression
    output, and ``int_score`` = round(clip(score, 0, 5)); FineWeb-Edu keeps ``int_score >= 3``.
    ``quality_score`` is clip(score, 0, 5) / 5. Keyed by ``id``, crawl ``dump``, host from ``url``.
    The classifier's model card computes ``int_score`` as ``int(round(max(0, min(score, 5))))``
    (https://huggingface.co/HuggingFaceFW/fineweb-edu-classifier): Python's ``round``, ties to
    even. A row whose ``int_score`` is not that of its ``score`` says two things at once and is
    rejected (``int_score_disagrees_with_score``).
``fineweb_edu_datatrove``
    FineWeb-Edu rows as datatrove writes them: a document is ``text``, ``id`` and one ``metadata``
    struct holding every other field (datatrove's ``ParquetWriter`` and ``JsonlWriter`` keep
    ``expand_metadata=False`` by default, ``src/datatrove/pipeline/writers/parquet.py``), so the
    FineWeb fields are ``metadata.dump``, ``metadata.url``, ``metadata.language``, … (the struct
    the FineWeb-Edu annotation card shows: https://huggingface.co/datasets/HuggingFaceFW/
    fineweb-edu-llama3-annotations) and the classifier's are ``metadata.score`` and
    ``metadata.int_score``. Read as ``fineweb_edu``.
``dclm_baseline``
    DCLM-baseline rows (https://huggingface.co/datasets/mlfoundations/dclm-baseline-1.0, card
    "features"; the same rows as Parquet: ``mlfoundations/dclm-baseline-1.0-parquet``): ``url``,
    a ``metadata`` struct of the WARC headers (``WARC-Record-ID``, ``WARC-Date`` as
    ``timestamp[s]``, …) and ``fasttext_openhermes_reddit_eli5_vs_rw_v2_bigram_200k_train_prob``,
    the DCLM fastText classifier's probability of ``__label__hq``
    (https://huggingface.co/mlfoundations/fasttext-oh-eli5), kept as ``quality_score``. Keyed by
    ``metadata.WARC-Record-ID`` (the response record's id, as FineWeb's ``id``), fetch time from
    ``metadata.WARC-Date``, host from ``url``. The rows carry no crawl id: the crawl comes from
    the ``crawl=`` folder or ``--crawl``. High quality: P(hq) above DCLM's own top-10% cut-off,
    0.018112 (``examples/README.md``).
``fineweb2_hq``
    FineWeb2-HQ rows (https://huggingface.co/datasets/epfml/FineWeb2-HQ): FineWeb-2's columns
    (``id``, ``dump``, ``url``, ``language`` as ISO 639-3, ``language_score``, …; the FineWeb-2
    card, https://huggingface.co/datasets/HuggingFaceFW/fineweb-2) and ``quality_score``, the
    sigmoid of the EPFL classifier over the document's XLM-RoBERTa embedding, on [0, 1]
    (``epfml/fineweb2-hq`` ``src/fineweb2_hq/mlp.py``, ``EmbeddingBinaryClassifierFilter``). The
    dataset keeps each language's top 10% (``data/filter_mlp.py``: ``retention_rate`` 0.1, the
    cut-off estimated per language and not published), so every row it publishes is high
    quality: the seed's threshold is 0. Keyed by ``id``, crawl ``dump``, host from ``url``.

Where a file holds two spellings of one column (``cosmo_fastText_label`` and ``label_quality``;
``in_gneissweb`` and ``IN_GNEISSWEB``), which one the source meant cannot be told: the file is
refused, naming both, unless ``--column NAME=COLUMN`` names the one to read
(:meth:`AnnotationProfile.spelling_conflicts`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from ingest.lake import LakeError

__all__ = ["PROFILES", "AnnotationProfile", "detect_profile", "profile_named"]

PAGE = "page"
HOST = "host"


@dataclass(frozen=True)
class AnnotationProfile:
    """One annotation source: how its files are recognised, read and keyed.

    Attributes:
        name: the profile's key (``page_annotations.annotation_profile``, the seed's rows).
        level: ``page`` (one row per annotated page) or ``host`` (one row per host).
        title: what the source is, in a few words.
        source: where its format is documented (dataset card, producer's code).
        read: the columns read, as ``(name, type)``; a name is the profile's own, which the
            file may spell as any of its ``aliases`` (matched ignoring case).
        aliases: the source spellings of a column, where they differ from its name.
        signature: columns (by name) whose presence identifies the profile.
        forbidden: source columns whose presence rules it out.
        required: columns a file must have.
        quality: columns that carry its quality signal: a file whose quality columns are all
            null is refused.
        crawl_column: the column naming each row's crawl (else the ``crawl=`` folder).
        key: how a page is keyed within its crawl.
        hq_rule: how a page or host is judged high quality (the seed holds the threshold).
    """

    name: str
    level: str
    title: str
    source: str
    read: tuple[tuple[str, pa.DataType], ...]
    signature: frozenset[str]
    required: tuple[str, ...]
    quality: tuple[str, ...]
    crawl_column: str | None
    key: str
    hq_rule: str
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    forbidden: frozenset[str] = frozenset()

    @property
    def read_schema(self) -> pa.Schema:
        """The columns read from a file of this profile, typed, by the profile's names."""
        return pa.schema([pa.field(name, kind) for name, kind in self.read])

    def spellings(self, name: str, overrides: Mapping[str, str] | None = None) -> tuple[str, ...]:
        """The source spellings of a column, most usual first (the one named, if one is)."""
        if overrides and name in overrides:
            return (overrides[name],)
        return self.aliases.get(name, (name,))

    def source_names(
        self, columns: Sequence[str], overrides: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """Column name → the spelling this file uses (the first alias it has, else the first)."""
        present = {column.lower() for column in columns}
        chosen = {}
        for name, _ in self.read:
            spellings = self.spellings(name, overrides)
            chosen[name] = next((s for s in spellings if s.lower() in present), spellings[0])
        return chosen

    def missing(
        self,
        columns: Sequence[str],
        names: Sequence[str],
        overrides: Mapping[str, str] | None = None,
    ) -> list[str]:
        """Of ``names``, those the file has under none of their spellings."""
        present = {column.lower() for column in columns}
        return [
            " or ".join(self.spellings(name, overrides))
            for name in names
            if not any(spelling.lower() in present for spelling in self.spellings(name, overrides))
        ]

    def spelling_conflicts(
        self, columns: Sequence[str], overrides: Mapping[str, str] | None = None
    ) -> list[tuple[str, list[str]]]:
        """Columns read that the file spells twice (two aliases, or one name in two cases).

        Returns:
            (column name, the file's columns that could fill it) for each such column, unless
            ``overrides`` names the one to read.
        """
        conflicts = []
        for name, _ in self.read:
            if overrides and name in overrides:
                continue
            wanted = {spelling.lower() for spelling in self.spellings(name)}
            found = [column for column in columns if column.lower() in wanted]
            if len(found) > 1:
                conflicts.append((name, found))
        return conflicts

    def matches(self, columns: Sequence[str]) -> bool:
        """Whether a file with these columns is of this profile."""
        present = {column.lower() for column in columns}
        return not self.missing(columns, sorted(self.signature)) and not (self.forbidden & present)


_TIME = pa.timestamp("us", tz="UTC")
_CC_CATEGORIES = tuple(
    (f"gneissweb_{category}", pa.float64())
    for category in ("medical", "education", "technology", "science")
)
# data-prep-kit's category columns: GneissWeb's recipe names first, then the transform's
# defaults (its README: label_med/score_med, label_edu/…, label_tech/…, label_sci/…).
_DPK_CATEGORY_ALIASES = {
    f"{category}_{part}": (f"{recipe}_{part}", f"{part}_{short}")
    for category, recipe, short in (
        ("medical", "medical", "med"),
        ("education", "education", "edu"),
        ("technology", "technology_computing", "tech"),
        ("science", "science", "sci"),
    )
    for part in ("label", "score")
}
_DCLM_SCORE = "fasttext_openhermes_reddit_eli5_vs_rw_v2_bigram_200k_train_prob"
_FINEWEB = (
    ("id", pa.string()),
    ("dump", pa.string()),
    ("url", pa.string()),
    ("language", pa.string()),
    ("language_score", pa.float64()),
)

PROFILES: dict[str, AnnotationProfile] = {
    profile.name: profile
    for profile in (
        AnnotationProfile(
            name="cc_gneissweb_urls",
            level=PAGE,
            title="Common Crawl URL-level GneissWeb annotations",
            source="https://huggingface.co/datasets/commoncrawl/gneissweb-annotation-url-testing-v1",
            read=(
                ("url_surtkey", pa.string()),
                ("fetch_time", _TIME),
                ("crawl", pa.string()),
                ("in_gneissweb", pa.bool_()),
                *_CC_CATEGORIES,
            ),
            signature=frozenset({"url_surtkey", "fetch_time", "in_gneissweb"}),
            forbidden=frozenset({"id"}),
            required=("url_surtkey", "fetch_time", "in_gneissweb"),
            quality=("in_gneissweb",),
            crawl_column="crawl",
            key="url_surtkey + fetch_time",
            hq_rule="in_gneissweb",
        ),
        AnnotationProfile(
            name="cc_gneissweb_hosts",
            level=HOST,
            title="Common Crawl host-level GneissWeb annotations",
            source="https://huggingface.co/datasets/commoncrawl/gneissweb-annotation-host-testing-v1",
            read=(
                ("surt_host_name", pa.string()),
                ("crawl", pa.string()),
                ("in_gneissweb", pa.bool_()),
                *_CC_CATEGORIES,
            ),
            signature=frozenset({"surt_host_name", "in_gneissweb"}),
            forbidden=frozenset({"url_surtkey", "id", "url"}),
            required=("surt_host_name", "in_gneissweb"),
            quality=("in_gneissweb",),
            crawl_column="crawl",
            key="surt_host_name",
            hq_rule="in_gneissweb (the host has pages in GneissWeb)",
        ),
        AnnotationProfile(
            name="dpk_gneissweb",
            level=PAGE,
            title="FineWeb rows annotated by the data-prep-kit GneissWeb transform",
            source=(
                "https://github.com/data-prep-kit/data-prep-kit/tree/dev/transforms/language/"
                "gneissweb_classification"
            ),
            read=(
                *_FINEWEB,
                ("quality_label", pa.string()),
                ("quality_score", pa.float64()),
                *(
                    (name, pa.float64() if name.endswith("score") else pa.string())
                    for name in _DPK_CATEGORY_ALIASES
                ),
            ),
            aliases={
                "quality_label": ("cosmo_fastText_label", "label_quality"),
                "quality_score": ("cosmo_fastText_score", "score_quality"),
                **_DPK_CATEGORY_ALIASES,
            },
            signature=frozenset({"id", "url", "quality_label", "quality_score"}),
            required=("id", "url", "quality_label", "quality_score"),
            quality=("quality_score",),
            crawl_column="dump",
            key="id",
            hq_rule="P(hq) from label and predicted-label probability > threshold",
        ),
        AnnotationProfile(
            name="fineweb_edu",
            level=PAGE,
            title="FineWeb-Edu rows (educational score 0-5)",
            source="https://huggingface.co/datasets/HuggingFaceFW/fineweb-edu",
            read=(*_FINEWEB, ("score", pa.float64()), ("int_score", pa.int64())),
            signature=frozenset({"id", "url", "score", "int_score"}),
            required=("id", "url", "score", "int_score"),
            quality=("int_score",),
            crawl_column="dump",
            key="id",
            hq_rule="int_score >= threshold (FineWeb-Edu keeps 3)",
        ),
        AnnotationProfile(
            name="dclm_baseline",
            level=PAGE,
            title="DCLM-baseline rows (DCLM fastText P(hq))",
            source="https://huggingface.co/datasets/mlfoundations/dclm-baseline-1.0",
            read=(
                ("id", pa.string()),
                ("url", pa.string()),
                ("fetch_time", _TIME),
                ("quality_score", pa.float64()),
            ),
            aliases={
                "id": ("metadata.WARC-Record-ID",),
                "fetch_time": ("metadata.WARC-Date",),
                "quality_score": (_DCLM_SCORE,),
            },
            signature=frozenset({"id", "url", "quality_score"}),
            required=("id", "url", "quality_score"),
            quality=("quality_score",),
            crawl_column=None,
            key="id",
            hq_rule="quality_score (P(hq)) > threshold (DCLM keeps its top 10%: 0.018112)",
        ),
        AnnotationProfile(
            name="fineweb2_hq",
            level=PAGE,
            title="FineWeb2-HQ rows (EPFL quality classifier score 0-1)",
            source="https://huggingface.co/datasets/epfml/FineWeb2-HQ",
            read=(*_FINEWEB, ("quality_score", pa.float64())),
            signature=frozenset({"id", "url", "dump", "quality_score"}),
            required=("id", "url", "quality_score"),
            quality=("quality_score",),
            crawl_column="dump",
            key="id",
            hq_rule="quality_score > threshold (0: every published row is in its top 10%)",
        ),
        AnnotationProfile(
            name="fineweb_edu_datatrove",
            level=PAGE,
            title="FineWeb-Edu rows as datatrove writes them (fields in a metadata struct)",
            source="https://github.com/huggingface/datatrove",
            read=(*_FINEWEB, ("score", pa.float64()), ("int_score", pa.int64())),
            aliases={
                name: (f"metadata.{name}",)
                for name in ("dump", "url", "language", "language_score", "score", "int_score")
            },
            signature=frozenset({"id", "url", "score", "int_score"}),
            required=("id", "url", "score", "int_score"),
            quality=("int_score",),
            crawl_column="dump",
            key="id",
            hq_rule="int_score >= threshold (FineWeb-Edu keeps 3)",
        ),
    )
}


def profile_named(name: str) -> AnnotationProfile:
    """The profile called ``name``.

    Raises:
        LakeError: no such profile (the message lists them).
    """
    try:
        return PROFILES[name]
    except KeyError:
        raise LakeError(
            f"no annotation profile {name!r}; the profiles are {', '.join(PROFILES)}"
        ) from None


def detect_profile(
    path: Path,
    columns: Sequence[str],
    named: str | None = None,
    overrides: Mapping[str, str] | None = None,
) -> AnnotationProfile:
    """The profile of a file with these columns: the one named, else the one that matches.

    Args:
        path: the file (for messages).
        columns: its column names, struct fields as dotted paths (``metadata.score``).
        named: the profile ``--profile`` names.
        overrides: profile column -> the file's column to read it from (``--column``); only
            with ``named``.

    Raises:
        LakeError: naming the file, when the named profile's required columns are missing, when
            no profile matches (listing what each needs), or when several do; when
            ``overrides`` come without a named profile or name a column the profile lacks.
    """
    if overrides and named is None:
        raise LakeError("--column needs --profile: name the profile whose column you choose")
    if named is not None:
        profile = profile_named(named)
        unknown = sorted(set(overrides or ()) - set(profile.read_schema.names))
        if unknown:
            raise LakeError(
                f"profile {profile.name} reads no column {', '.join(unknown)}; it reads "
                + ", ".join(profile.read_schema.names)
            )
        missing = profile.missing(columns, profile.required, overrides)
        if missing:
            raise LakeError(
                f"{path}: profile {profile.name} needs the column(s) {', '.join(missing)}, "
                f"which the file lacks"
            )
        return profile
    matching = [profile for profile in PROFILES.values() if profile.matches(columns)]
    if len(matching) == 1:
        return matching[0]
    if not matching:
        needs = "; ".join(
            f"{profile.name} ({profile.title}): "
            + ", ".join(profile.missing([], sorted(profile.signature)))
            for profile in PROFILES.values()
        )
        shown = ", ".join(sorted(columns)[:30])
        raise LakeError(
            f"{path}: matches no annotation profile (a quality column is missing). "
            f"It has: {shown}. The profiles need: {needs}"
        )
    names = ", ".join(profile.name for profile in matching)
    raise LakeError(f"{path}: matches several annotation profiles ({names}); pass --profile")
