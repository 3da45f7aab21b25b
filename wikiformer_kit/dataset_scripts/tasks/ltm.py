"""Long Texts Matching (LTM): an article's text as the query, an article from its See also section as the positive.

The paper (section "Long Texts Matching") and the choices where it is silent are the card's text (:data:`SPEC`).
Each edge draws its negatives with an RNG derived from the seed and both article ids, so that rows do not depend on
sharding; texts are cut to ``ltm_max_words`` words (the paper uses 255 tokens a side).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wikiformer_kit.dataset_scripts.tasks.common import TaskOutput, group_row, task_rng
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import ArticleIndex
from wikiformer_kit.dataset_scripts.tasks.spec import TEXT, TEXTS, TaskSpec, group_features

SKIP_REASONS = {
    "link-target-missing": "See also link to a page missing from the corpus (after redirects)",
    "link-self": "See also link to the article itself (after redirects)",
    "link-duplicate": "See also link listed twice (after redirects)",
    "link-source-ineligible": "See also link of an article that is too short or a disambiguation page",
    "link-target-ineligible": "See also link to an article that is too short or a disambiguation page",
    "link-no-negative": "See also link for which no random negative article could be drawn",
}


@dataclass(frozen=True)
class PlannedGroup:
    """One LTM row as index rows: the edge (source, target) and the negative articles."""

    source: int
    target: int
    negatives: tuple[int, ...]


def plan_groups(
    source: int, targets: Sequence[int | None], index: ArticleIndex, options: TaskOptions
) -> tuple[list[PlannedGroup], TaskOutput]:
    """Rows for the See also edges of index row ``source`` (v_i), as index rows, from its See also ``targets``
    (``None``: not in the corpus) in listed order; and the links dropped, by reason (a :class:`TaskOutput`
    without groups)."""
    out = TaskOutput()
    planned: list[PlannedGroup] = []
    linked = {source} | {t for t in targets if t is not None}
    done: set[int] = set()
    source_id = index.table.column("article_id")[source].as_py()
    for target in targets:
        if target is None:
            out.skipped["link-target-missing"] += 1
        elif target == source:
            out.skipped["link-self"] += 1
        elif target in done:
            out.skipped["link-duplicate"] += 1
        elif not index.eligible[source]:
            out.skipped["link-source-ineligible"] += 1
        elif not index.eligible[target]:
            out.skipped["link-target-ineligible"] += 1
        else:
            done.add(target)
            target_id = index.table.column("article_id")[target].as_py()
            rng = task_rng(options.seed, "ltm", source_id, target_id)
            negatives = sample_negative_rows(index.eligible_rows, linked, rng, options.ltm_negatives)
            if negatives:
                planned.append(PlannedGroup(source, target, tuple(negatives)))
            else:
                out.skipped["link-no-negative"] += 1
    return planned, out


def sample_negative_rows(candidates: np.ndarray, exclude: set[int], rng: random.Random, wanted: int) -> list[int]:
    """Up to ``wanted`` distinct rows drawn uniformly from ``candidates``, none in ``exclude`` (at most
    8 x ``wanted`` draws, so a tiny corpus gives fewer rather than looping)."""
    chosen: list[int] = []
    if len(candidates) == 0:
        return chosen
    for _ in range(8 * wanted):
        row = int(candidates[rng.randrange(len(candidates))])
        if row not in exclude and row not in chosen:
            chosen.append(row)
            if len(chosen) == wanted:
                break
    return chosen


def materialise(planned: Sequence[PlannedGroup], index: ArticleIndex) -> TaskOutput:
    """Turn planned rows into LTM rows with their texts (one read of the index for all of them); negatives whose
    text equals the query's or the positive's are dropped, and a row left without negative is counted."""
    out = TaskOutput()
    rows = index.rows([r for p in planned for r in (p.source, p.target, *p.negatives)])
    for plan in planned:
        source_id, source_title, query = rows[plan.source]
        positive_id, positive_title, positive = rows[plan.target]
        negatives, negative_titles, seen = [], [], {query, positive}
        for row in plan.negatives:
            _, title, text = rows[row]
            if text not in seen:
                seen.add(text)
                negatives.append(text)
                negative_titles.append(title)
        if not negatives:
            out.skipped["link-no-negative"] += 1
            continue
        row = group_row("query", query, positive, negatives, source_id, source_title)
        out.groups.append(
            row | {"positive_id": positive_id, "positive_title": positive_title, "negative_titles": negative_titles}
        )
    return out


def _see_also_note(statistics: dict[str, Any]) -> list[str]:
    see_also = statistics["see_also"]
    return [f"See Also Graph: {see_also['links']} links from {see_also['articles']} articles."]


SPEC = TaskSpec(
    name="ltm",
    title="Long Texts Matching (LTM)",
    features=group_features("query", positive_id=TEXT, positive_title=TEXT, negative_titles=TEXTS),
    fixed_side="query",
    pairing=(
        "For each edge (v_i, v_j) of the See Also Graph (v_j is listed in v_i's See also section; redirects "
        "followed): `query` = v_i's text, `positive` = v_j's text, `negatives` = texts of random articles that are "
        "neither v_i nor linked from v_i's See also section (`negative_titles` names them). The query (a long "
        "text) is the fixed side."
    ),
    choices=(
        "Links to pages missing from the corpus, self links and repeated links are dropped and counted below; an "
        "article shorter than `min_words` words or a disambiguation page is never a query, positive or negative."
    ),
    skip_reasons=SKIP_REASONS,
    sampler=None,  # corpus-wide: planned and materialised by the LTM stage of .steps (plan_groups, materialise)
    query_max_length=255,  # "both documents ... 255"
    doc_max_length=255,
    card_notes=_see_also_note,
)
