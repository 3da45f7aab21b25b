"""The task-spec contract (ARCHITECTURE.md, "Task spec"): what a pre-training task declares next to its sampler.

A task is one module in ``dataset_scripts/tasks/`` with its sampler
``(article: Article, rng: random.Random, options: TaskOptions) -> TaskOutput`` (rows whose keys are exactly the
columns of ``features``, what it leaves out counted under the keys of ``skip_reasons``) and a
``SPEC = TaskSpec(...)``. :mod:`.registry` collects the specs; the build, the dataset cards (:mod:`.card`) and
training read them and know no task by name. A sampler sees one article and its own seeded RNG
(``task_rng(seed, name, article.id)``), so rows do not depend on sharding; a task that needs the whole corpus at
once (``sampler=None``: LTM, PROP, HARP) is built by a stage of its own.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions, check_choice

if TYPE_CHECKING:
    import datasets

    from wikiformer_kit.dataset_scripts.corpus.article import Article
    from wikiformer_kit.dataset_scripts.tasks.common import TaskOutput


@dataclass(frozen=True)
class Value:
    """A scalar column, as ``datasets.Value`` names it (``string``, ``float64``), without importing ``datasets``
    (seconds at the start of every build, which only needs the Arrow schema)."""

    dtype: str

    def arrow_type(self) -> pa.DataType:
        return pa.type_for_alias(self.dtype)

    def to_dict(self) -> dict[str, Any]:
        """What ``datasets`` records of it in a Parquet file's ``huggingface`` metadata."""
        return {"dtype": self.dtype, "_type": "Value"}

    def to_datasets(self) -> datasets.Value:
        import datasets

        return datasets.Value(self.dtype)


@dataclass(frozen=True)
class List:
    """A list column of ``feature`` values, as ``datasets.List`` names it."""

    feature: Value

    def arrow_type(self) -> pa.DataType:
        return pa.list_(self.feature.arrow_type())

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature.to_dict(), "_type": "List"}

    def to_datasets(self) -> datasets.List:
        import datasets

        return datasets.List(self.feature.to_datasets())


class Features(dict):
    """A task's columns in order, name -> :class:`Value` or :class:`List`: the Arrow schema of its shards
    (:attr:`arrow_schema`, the bytes ``datasets.Features.arrow_schema`` gives) and the ``datasets.Features``
    (:meth:`to_datasets`) on demand."""

    @functools.cached_property
    def arrow_schema(self) -> pa.Schema:
        """The shards' schema with the ``huggingface`` metadata ``datasets`` writes (so that ``load_dataset`` reads
        the same features back)."""
        metadata = {"info": {"features": {name: column.to_dict() for name, column in self.items()}}}
        fields = [pa.field(name, column.arrow_type()) for name, column in self.items()]
        return pa.schema(fields).with_metadata({"huggingface": json.dumps(metadata)})

    def to_datasets(self) -> datasets.Features:
        import datasets

        return datasets.Features({name: column.to_datasets() for name, column in self.items()})


TEXT = Value("string")
"""The feature of one text column."""
TEXTS = List(Value("string"))
"""The feature of a list of texts (``negatives``, ``path``)."""
FLOATS = List(Value("float64"))
"""The feature of a list of numbers (PROP's log-likelihoods, RDP's importance)."""

Sampler = Callable[["Article", random.Random, "TaskOptions"], "TaskOutput"]
"""A per-article sampler: the article, its RNG and the build options -> rows and skip counts."""

FIXED_SIDES = ("query", "document")


@dataclass(frozen=True)
class Origin:
    """The method a task comes from when it is not Wikiformer's (PROP, HARP): what its dataset card names.

    Args:
        name: the method, e.g. ``"PROP"`` (card title and tags).
        reference: the paper, e.g. ``"Ma et al., WSDM 2021"``.
        objective: how the method trains on a row (card text), e.g. ``"a margin-1 pairwise hinge loss"``.
        citation: the paper's BibTeX entry.
    """

    name: str
    reference: str
    objective: str
    citation: str


def group_features(fixed_side: str, **extra: Value | List) -> Features:
    """The features of a group row: the fixed side, ``positive``, ``negatives``, ``article_id``, ``title``, then
    the task's ``extra`` columns in the order given."""
    return Features(
        {fixed_side: TEXT, "positive": TEXT, "negatives": TEXTS, "article_id": TEXT, "title": TEXT, **extra}
    )


@dataclass(frozen=True)
class TaskSpec:
    """Everything the kit knows of one pre-training task.

    Args:
        name: the short name: ``--tasks`` value, folder ``wikiformer-<name>``, RNG key, log name.
        title: the task's full name with its abbreviation, e.g. ``"Simulated Re-ranking (SRR)"`` (card title).
        features: the columns of the Parquet shards, in order (:func:`group_features`); every row a sampler
            returns has exactly these keys. :attr:`hf_features` gives them as ``datasets.Features``.
        fixed_side: the column every candidate (``positive`` and each of ``negatives``) is paired with: ``query``
            (candidates are documents) or ``document`` (candidates are queries, as in RWI).
        pairing: card text: how a row is formed (Markdown).
        choices: card text: the choices where the paper is silent (Markdown).
        skip_reasons: what the sampler leaves out, by stable key, with the meaning shown in the card.
        sampler: the per-article sampler; ``None`` for a corpus-wide task with a stage of its own (LTM).
        query_max_length: the paper's token budget for the query side in training.
        doc_max_length: the paper's token budget for the document side in training.
        reads_links: whether the sampler reads ``Article.links``; a unit whose tasks all say no is read without
            that column (the largest: a third of the read).
        card_notes: build statistics -> extra card lines (e.g. the See Also Graph's size for LTM).
        measures: the measures the task's statistics report beyond counts and lengths (``TaskStats.measures``),
            by name, with their meaning for the card.
        origin: the method the task comes from; ``None`` = Wikiformer.
    """

    name: str
    title: str
    features: Features
    fixed_side: str
    pairing: str
    choices: str
    skip_reasons: dict[str, str]
    sampler: Sampler | None
    query_max_length: int = 30
    doc_max_length: int = 480
    reads_links: bool = True
    card_notes: Callable[[dict[str, Any]], list[str]] | None = field(default=None, compare=False)
    measures: dict[str, str] = field(default_factory=dict, compare=False)
    origin: Origin | None = None

    def __post_init__(self) -> None:
        check_choice(f"task {self.name}: fixed_side", self.fixed_side, FIXED_SIDES)
        missing = {self.fixed_side, "positive", "negatives"} - set(self.features)
        if missing:
            raise ValueError(f"task {self.name}: features lack the group column(s) {sorted(missing)}")

    @property
    def arrow_schema(self) -> pa.Schema:
        """The Arrow schema of the Parquet shards (built once: every shard is written with it)."""
        return self.features.arrow_schema

    @functools.cached_property
    def hf_features(self) -> datasets.Features:
        """The columns as ``datasets.Features`` (imports ``datasets``)."""
        return self.features.to_datasets()

    @property
    def columns(self) -> tuple[str, ...]:
        """The Parquet columns in order."""
        return tuple(self.features)
