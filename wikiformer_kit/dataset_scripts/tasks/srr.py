"""Simulated Re-ranking (SRR): a heading path as the query, that section's text against its siblings' texts.

The paper (section "Simulated Re-ranking") and the choices where it is silent are the card's text (:data:`SPEC`).
Not in it: a drawn d_i without a sibling text distinct from its own (duplicated sections) gives way to the next
draw; one d_i drawn per F is the default because it keeps the paper's weighting (each F one group, whatever its
number of children).
"""

from __future__ import annotations

import random
import re

from wikiformer_kit.dataset_scripts.corpus.article import ROOT, Article
from wikiformer_kit.dataset_scripts.tasks.common import (
    END_MATTER_SKIP,
    REFERENCE_LIST_SKIP,
    TaskOutput,
    group_row,
    join_titles,
    node_text,
    nodes_with_text,
    pick_negatives,
    section_skip_reasons,
)
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.spec import TEXTS, TaskSpec, group_features

SKIP_REASONS = section_skip_reasons(
    {
        "no-sections": "article without sections",
        "no-parent-with-two-text-children": "no node with at least two children having text",
        "duplicate-row": "row identical to an earlier row of the same article",
        "original:5-sections-or-fewer": "(original variant) 5 sections or fewer",
        "original:fewer-than-4-long-sections": "(original variant) fewer than 4 long sections",
        "original:no-long-section-at-deepest-levels": "(original variant) no long section at the two deepest levels",
        "original:fewer-than-3-negatives": "(original variant) fewer than 3 distinct negatives",
    }
)

_ORIGINAL_SPLIT = re.compile(r'[ ,.?!，。？！()/\n"]')


def srr_groups(article: Article, rng: random.Random, options: TaskOptions) -> TaskOutput:
    """SRR rows of one article (``path``: the positive section's title path, ``query``: those titles joined)."""
    out = TaskOutput()
    if article.is_disambiguation:
        out.skipped["disambiguation"] += 1
    elif not article.sections:
        out.skipped["no-sections"] += 1
    elif options.srr_variant == "original":
        _original_variant(article, rng, options, out)
    else:
        _paper_variant(article, rng, options, out)
    return out


def _paper_variant(article: Article, rng: random.Random, options: TaskOptions, out: TaskOutput) -> None:
    texts = [node_text(article, i, options.max_words) for i in range(len(article.sections))]
    with_text = set(nodes_with_text(article, out, options)[1])
    children: dict[int, list[int]] = {ROOT: []}
    for index, section in enumerate(article.sections):
        children.setdefault(index, [])
        if index in with_text:
            children.setdefault(section.parent, []).append(index)
    seen: set[tuple[str, str]] = set()
    for parent in sorted(children):  # ROOT (-1) first, then document order
        kids = children[parent]
        if len(kids) < 2:
            continue
        order = kids if options.positives == "all" else rng.sample(kids, len(kids))
        for child in order:
            negatives = pick_negatives((texts[k] for k in kids if k != child), texts[child], rng, options.max_negatives)
            if not negatives:
                continue
            path = list(article.sections[child].path)
            row = group_row("query", join_titles(path), texts[child], negatives, article.id, article.title, path=path)
            if (row["query"], row["positive"]) in seen:
                out.skipped["duplicate-row"] += 1
                continue
            seen.add((row["query"], row["positive"]))
            out.groups.append(row)
            if options.positives == "sample":
                break
    if not out.groups and not set(out.skipped) - {END_MATTER_SKIP, REFERENCE_LIST_SKIP}:
        out.skipped["no-parent-with-two-text-children"] += 1


def _original_variant(article: Article, rng: random.Random, options: TaskOptions, out: TaskOutput) -> None:
    """The original research code's rule (not the paper's): an article with more than 5 sections and at least 4
    long ones (more than 20 tokens split on spaces and punctuation) gives one row, the first long section at the
    deepest level or the one above against all other long sections (capped at ``max_negatives``, at least 3)."""
    sections = article.sections
    if len(sections) <= 5:
        out.skipped["original:5-sections-or-fewer"] += 1
        return
    left_out, _ = nodes_with_text(article, out, options)
    long_sections = [
        i
        for i, s in enumerate(sections)
        if i not in left_out and len([w for w in _ORIGINAL_SPLIT.split(s.text) if w]) > 20
    ]
    if len(long_sections) < 4:
        out.skipped["original:fewer-than-4-long-sections"] += 1
        return
    max_level = max(s.level for s in sections)
    positive = next((i for i in long_sections if sections[i].level >= max_level - 1), None)
    if positive is None:
        out.skipped["original:no-long-section-at-deepest-levels"] += 1
        return
    texts = {i: node_text(article, i, options.max_words) for i in long_sections}
    negatives = pick_negatives(
        (texts[i] for i in long_sections if i != positive), texts[positive], rng, options.max_negatives
    )
    if len(negatives) < 3:
        out.skipped["original:fewer-than-3-negatives"] += 1
        return
    path = list(sections[positive].path)
    row = group_row("query", join_titles(path), texts[positive], negatives, article.id, article.title, path=path)
    out.groups.append(row)


SPEC = TaskSpec(
    name="srr",
    title="Simulated Re-ranking (SRR)",
    features=group_features("query", path=TEXTS),
    fixed_side="query",
    pairing=(
        "For a node F of an article's Wiki Structure Tree (the root, i.e. the article, included) with at least two "
        "children that have text, a child d_i gives the row: `query` = the titles on the path from the article title "
        "down to d_i (joined by spaces; `path` keeps them as a list), `positive` = d_i's own text, `negatives` = the "
        "texts of d_i's siblings. The query is the fixed side; each candidate is scored as `[CLS] query [SEP] "
        "candidate [SEP]`."
    ),
    choices=(
        "With `positives=sample` (the paper) each node F gives one row, d_i drawn with a seeded RNG; with "
        "`positives=all` each child gives a row. A child has text when its own text has at least `min_words` words. "
        "`srr_variant=original` reproduces the original research code instead (first long section at the two "
        "deepest levels vs all other long sections of the article)."
    ),
    skip_reasons=SKIP_REASONS,
    sampler=srr_groups,
    reads_links=False,
)
