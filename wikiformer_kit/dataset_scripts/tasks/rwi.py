"""Representative Words Identification (RWI): which title path best describes a section's text.

The paper (section "Representative Words Identification") and the choices where it is silent are the card's text
(:data:`SPEC`). Here a node's depth counts the root as 1, so that a negative has exactly as many titles as the
positive (which makes the task about *which* words, not how many); a drawn node that cannot give a negative gives
way to the next draw, and a negative equal to the positive or to an earlier one is drawn again (at most 4 x
``max_negatives`` draws in all).
"""

from __future__ import annotations

import random

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.tasks.common import (
    TaskOutput,
    group_row,
    join_titles,
    node_text,
    nodes_with_text,
    section_skip_reasons,
)
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.spec import TEXTS, TaskSpec, group_features

SKIP_REASONS = section_skip_reasons(
    {
        "no-section-with-text": "no section has text",
        "too-few-sections-with-text": "fewer than 2 sections have text (no other node to draw negatives from)",
        "no-distinct-negative": "no negative query different from the positive could be drawn",
    }
)


def rwi_groups(article: Article, rng: random.Random, options: TaskOptions) -> TaskOutput:
    """RWI rows of one article (``path``: the positive title path, ``positive``: those titles joined)."""
    out = TaskOutput()
    if article.is_disambiguation:
        out.skipped["disambiguation"] += 1
        return out
    _, nodes = nodes_with_text(article, out, options)
    if not nodes:
        out.skipped["no-section-with-text"] += 1
        return out
    if len(nodes) < 2:
        out.skipped["too-few-sections-with-text"] += 1
        return out
    order = nodes if options.positives == "all" else rng.sample(nodes, len(nodes))
    for node in order:
        path = list(article.sections[node].path)
        positive = join_titles(path)
        negatives = _negative_queries(article, node, nodes, positive, rng, options.max_negatives)
        if not negatives:
            continue
        document = node_text(article, node, options.max_words)
        out.groups.append(group_row("document", document, positive, negatives, article.id, article.title, path=path))
        if options.positives == "sample":
            break
    if not out.groups:
        out.skipped["no-distinct-negative"] += 1
    return out


def _negative_queries(
    article: Article, node: int, nodes: list[int], positive: str, rng: random.Random, wanted: int
) -> list[str]:
    others = [i for i in nodes if i != node]
    subtitles = article.depth(node)
    if len(others) < subtitles:
        return []
    seen = {positive}
    negatives: list[str] = []
    for _ in range(4 * wanted):
        picked = sorted(rng.sample(others, subtitles))
        query = join_titles([article.title] + [article.sections[i].title for i in picked])
        if query not in seen:
            seen.add(query)
            negatives.append(query)
            if len(negatives) == wanted:
                break
    return negatives


SPEC = TaskSpec(
    name="rwi",
    title="Representative Words Identification (RWI)",
    features=group_features("document", path=TEXTS),
    fixed_side="document",
    pairing=(
        "A section d_i of depth n (its title path has the article title + n subtitles) gives the row: `document` = "
        "d_i's own text, `positive` = its title path (joined by spaces; `path` keeps the list), `negatives` = the "
        "article title + the subtitles of n other sections drawn at random (same length as the positive, never "
        "equal to it). The document is the fixed side and the candidates are queries: each is scored as "
        "`[CLS] candidate [SEP] document [SEP]`."
    ),
    choices=(
        "Sections without text (fewer than `min_words` words) are not candidates. With `positives=sample` (the "
        "paper) each article gives one row; with `positives=all` each section with text does. Negative queries are "
        "independent draws, deduplicated."
    ),
    skip_reasons=SKIP_REASONS,
    sampler=rwi_groups,
    reads_links=False,
)
