"""Abstract Texts Identification (ATI): the article title as the query, its abstract against its sections.

The paper (section "Abstract Texts Identification"): query = the title, positive = the abstract (the lead text
before the first heading), negatives = the other sections of the same article. Sections whose own text has fewer
than ``min_words`` words are left out (the original code kept empty ones), as is an abstract that short.
"""

from __future__ import annotations

import random

from wikiformer_kit.dataset_scripts.corpus.article import ROOT, Article
from wikiformer_kit.dataset_scripts.tasks.common import (
    TaskOutput,
    count_words,
    group_row,
    node_text,
    nodes_with_text,
    pick_negatives,
    section_skip_reasons,
)
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.spec import TaskSpec, group_features

SKIP_REASONS = section_skip_reasons(
    {
        "no-title": "article without a title",
        "short-abstract": "abstract shorter than min_words",
        "no-section-with-text": "no section with text distinct from the abstract",
    }
)


def ati_groups(article: Article, rng: random.Random, options: TaskOptions) -> TaskOutput:
    """The ATI row of one article (at most one; ``rng`` only picks negatives beyond ``max_negatives``)."""
    out = TaskOutput()
    query = article.title.strip()
    positive = node_text(article, ROOT, options.max_words)
    if article.is_disambiguation:
        out.skipped["disambiguation"] += 1
    elif not query:
        out.skipped["no-title"] += 1
    elif count_words(article.abstract) < options.min_words:
        out.skipped["short-abstract"] += 1
    else:
        candidates = [node_text(article, i, options.max_words) for i in nodes_with_text(article, out, options)[1]]
        negatives = pick_negatives(candidates, positive, rng, options.max_negatives)
        if negatives:
            out.groups.append(group_row("query", query, positive, negatives, article.id, article.title))
        else:
            out.skipped["no-section-with-text"] += 1
    return out


SPEC = TaskSpec(
    name="ati",
    title="Abstract Texts Identification (ATI)",
    features=group_features("query"),
    fixed_side="query",
    pairing=(
        "`query` = the article title, `positive` = its abstract (the lead text before the first heading), "
        "`negatives` = the texts of the article's sections. The query is the fixed side."
    ),
    choices="Sections with fewer than `min_words` words are not negatives; neither is a text equal to the abstract.",
    skip_reasons=SKIP_REASONS,
    sampler=ati_groups,
    reads_links=False,
)
