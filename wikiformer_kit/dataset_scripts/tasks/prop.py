"""PROP's Representative wOrds Prediction (ROP): which of two word sets sampled from a document represents it better.

The paper (Ma et al., WSDM 2021, section 3.1, Algorithm 1, section 4.4.2) and how a row is formed here are the
card's text (:data:`SPEC`); the language model is :mod:`.language_model`. Where the paper and the original code
differ the paper is the default and the code's value an option (:meth:`PropOptions.original` gives all of them);
where the paper is silent the code's choice is the default. Bad input is counted, never fatal (:data:`SKIP_REASONS`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.words import has_fewer_words
from wikiformer_kit.dataset_scripts.tasks.baseline_options import BACKGROUNDS, PROP_VARIANTS, TIES, PropOptions  # noqa: F401 (part of this module's interface)
from wikiformer_kit.dataset_scripts.tasks.common import TaskOutput, group_row
from wikiformer_kit.dataset_scripts.tasks.language_model import CollectionModel, DocumentModel, poisson_length
from wikiformer_kit.dataset_scripts.tasks.origins import PROP
from wikiformer_kit.dataset_scripts.tasks.spec import FLOATS, TaskSpec, group_features

SKIP_REASONS = {
    "disambiguation": "disambiguation page",
    "empty-document": "document without any word",
    "only-stopwords": "document made only of stopwords",
    "no-vocabulary-word": "no word of the document occurs often enough in the corpus (min_count)",
    "document-shorter-than-word-set": "pair not drawn: the document has fewer vocabulary words than the set length "
    "(drop_long_sets)",
    "tied-word-sets": "pair dropped: both word sets have the same likelihood (ties=drop)",
    "subsampling-exhausted": "pair dropped: subsampling rejected every draw (only very frequent words)",
    "short-document": "document under `short_document_words` words, skipped with probability `short_document_skip` "
    "(the original code: under 100 word pieces, 80% of the time)",
    "pair-not-kept": "pair generated but not among the `pairs_kept` drawn at random (the original code's 5 of 10)",
}


def document_text(article: Article) -> str:
    """The PROP document: the title + ". " + the article's text (the original code's ``title + '. ' + content``)."""
    return join_document(article.title, [article.abstract, *(section.text for section in article.sections)])


def join_document(title: str, parts: Iterable[str]) -> str:
    """:func:`document_text` from the title and the texts of the abstract and sections (``Article.text``'s
    parts), for readers that hold columns rather than articles."""
    title, text = title.strip(), "\n\n".join(p for p in parts if p).strip()
    return f"{title}. {text}" if title and text else title or text


def document_skip(is_disambiguation: bool, has_words: bool) -> str:
    """Why a document makes no row whatever the vocabulary (a skip reason), or ``""``."""
    if is_disambiguation:
        return "disambiguation"
    return "" if has_words else "empty-document"


@dataclass(frozen=True)
class PropDocument:
    """A document as its ROP rows need it: what the statistics stage keeps of it, so that the rows stage neither
    reads the corpus nor tokenises again.

    Args:
        article_id: the article (or MS MARCO document) id.
        title: its title.
        document: :func:`document_text` cut to ``max_words`` words (the rows' ``document`` column).
        skip: :func:`document_skip`.
        has_content: whether it has a word that is not a stopword.
        ids: its words of the vocabulary V, as :class:`~.language_model.CollectionModel` ids, in text order.
    """

    article_id: str
    title: str
    document: str
    skip: str
    has_content: bool
    ids: np.ndarray


def document_rows(
    document: PropDocument, rng: random.Random, collection: CollectionModel, options: PropOptions
) -> TaskOutput:
    """The ROP rows of one document: ``pairs_per_document`` set lengths l ~ Poisson, then two sets of each
    length drawn from the document model, the more likely one the positive (``rng``: the document's,
    ``task_rng(seed, "prop", article_id)``)."""
    out = TaskOutput()
    if document.skip and (document.skip != "disambiguation" or options.skip_disambiguation):
        out.skipped[document.skip] += 1
        return out
    model = DocumentModel.from_ids(document.ids, collection)
    if model.length == 0:
        out.skipped["no-vocabulary-word" if document.has_content else "only-stopwords"] += 1
        return out
    for _ in range(options.epochs):
        if not _epoch_rows(document, model, rng, collection, options, out):
            break
    return out


def _epoch_rows(
    document: PropDocument,
    model: DocumentModel,
    rng: random.Random,
    collection: CollectionModel,
    options: PropOptions,
    out: TaskOutput,
) -> bool:
    """One epoch's pairs of a document into ``out``; ``False`` when the document was skipped as short (every
    epoch is then skipped: the original code skips the document)."""
    sizes = [poisson_length(rng, options.poisson_lambda) for _ in range(options.pairs_per_document)]
    if (
        options.short_document_words
        and has_fewer_words(document.document, options.short_document_words)
        and rng.random() < options.short_document_skip
    ):
        out.skipped["short-document"] += 1
        return False
    if options.pairs_kept:
        kept = sorted(rng.sample(range(len(sizes)), options.pairs_kept))
        out.skipped["pair-not-kept"] += len(sizes) - len(kept)
        sizes = [sizes[i] for i in kept]
    drawable = [size for size in sizes if size <= model.length or not options.drop_long_sets]
    if len(drawable) < len(sizes):
        out.skipped["document-shorter-than-word-set"] += len(sizes) - len(drawable)
    if options.corpus_sample:
        model.restrict_draws(rng, options.corpus_sample)
    sets = model.sample_sets(rng, [size for size in drawable for _ in range(2)])
    likelihoods = iter(model.log_likelihoods([s for s in sets if s is not None]))  # one call for the document
    scores = [None if s is None else next(likelihoods) for s in sets]
    for first, second, high, low in zip(sets[::2], sets[1::2], scores[::2], scores[1::2], strict=True):
        if first is None or second is None:
            out.skipped["subsampling-exhausted"] += 1
            continue
        if high == low and options.ties == "drop":
            out.skipped["tied-word-sets"] += 1
            continue
        positive, negative = (first, second) if high > low else (second, first)
        shown = [" ".join(collection.shown(rng, words.tolist())) for words in (positive, negative)]
        row = group_row("document", document.document, shown[0], shown[1:], document.article_id, document.title)
        out.groups.append(row | {"log_likelihoods": [max(high, low), min(high, low)]})
    return True


SPEC = TaskSpec(
    name="prop",
    title="Representative Words Prediction (ROP)",
    features=group_features("document", log_likelihoods=FLOATS),
    fixed_side="document",
    pairing=(
        'For a document D (title + ". " + text), a set length l ~ Poisson(3) (l > 0) and two sets S1, S2 of l '
        "words drawn with replacement from D's Dirichlet-smoothed unigram model P(w|D) = (c(w,D) + mu P(w|C)) / "
        "(|D| + mu), mu = the average document length: `positive` = the set with the higher likelihood "
        "prod P(w|D), `negatives` = [the other], `log_likelihoods` = both log-likelihoods. The document is the fixed "
        "side and the candidates are word sets: each is scored as `[CLS] set [SEP] document [SEP]`."
    ),
    choices=(
        "Words are the runs of letters of the lowercased text without the stopwords (`stopwords`: INQUERY, as the "
        "paper, unless the line after this paragraph names another list); the "
        "vocabulary holds the words occurring at least `min_count` times in the corpus, and |D|, c(w,D) and mu count "
        "only its words, so P(w|D) is a distribution over it and is sampled exactly (the document's words with "
        "probability |D|/(|D|+mu), else the collection model; with `corpus_sample` K > 0, as the original code, "
        "over the document's words plus K sampled corpus words only). Subsampling (threshold `subsample`) thins the "
        "draws with word2vec's keep probability sqrt(t/f) + t/f. A pair of equally likely sets makes S2 the "
        "positive (`ties`). A document under `short_document_words` words is skipped with probability "
        "`short_document_skip` (the code's rule; the paper is silent). The paper's values are the defaults; the "
        "original code's (min count 10, t = 1e-4, 10 pairs generated and 5 kept, document frequencies as the "
        "collection model, K = 500, NLTK English + INQUERY stopwords, Porter stems shown as one of their words) are "
        "options (`--prop-variant original`); "
        "`prop.stopwords` names the list used (empty: INQUERY)."
    ),
    skip_reasons=SKIP_REASONS,
    sampler=None,  # corpus-wide: the collection model first (baseline_steps)
    origin=PROP,
)
"""PROP's ROP task: built by :mod:`.baseline_steps` (it needs the corpus-wide collection model)."""
