"""The unigram language models behind PROP's word-set sampling (and HARP's stopwords and query lengths).

PROP (Ma et al., WSDM 2021, section 3.1, Algorithm 1 and section 4.4.2) draws pairs of word sets from a document's
Dirichlet-smoothed model P(w|D) = (c(w, D) + mu * P(w|C)) / (|D| + mu), mu = the average document length; the PROP
card (:data:`.prop.SPEC`) and docs/baselines.md state how it is computed here. What the code below relies on:

- ``c(w, D)`` and ``|D|`` count only words of the vocabulary V, so a draw from P(w|D) is exactly a draw from the
  document's own words with probability |D| / (|D| + mu), else from P(w|C) (no top-K cut as in the original code).
- With ``stem`` every count (V, c(w, D), |D|, mu, cf, df, the subsampling frequencies) is of Porter stems,
  stopwords removed first as the original code does; a drawn stem is shown as one of its corpus words
  (:meth:`CollectionModel.shown`, the code's ``stem2pos``); the document keeps its own words.
- Subsampling rejects a drawn word with probability 1 - keep(w), keep(w) = sqrt(t/f) + t/f with f = cf(w) / (all
  words of the corpus), as word2vec's C code (and PROP's) does; a set is still scored with P(w|D).
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pyarrow as pa

from wikiformer_kit.dataset_scripts.corpus.words import is_spaced, letter_run, letter_words
from wikiformer_kit.dataset_scripts.tasks.baseline_options import BACKGROUNDS
from wikiformer_kit.dataset_scripts.tasks.options import check_choice
from wikiformer_kit.dataset_scripts.tasks.word_arrays import dictionary_script_words, letter_word_arrays
from wikiformer_kit.home import kit_file

_WORD = re.compile(letter_run())
_STOPWORD_DIR = kit_file("data/stopwords")
INQUERY = _STOPWORD_DIR / "inquery.txt"
"""The vendored INQUERY stopword list (418 words; see data/stopwords/README.md)."""
NLTK_ENGLISH = _STOPWORD_DIR / "nltk-english.txt"
"""The vendored NLTK English stopword list (179 words; see data/stopwords/README.md)."""
CHINESE = _STOPWORD_DIR / "stopwords-iso-zh.txt"
"""The single ideographs of the stopwords-iso Chinese list (242; see data/stopwords/README.md)."""
JAPANESE = _STOPWORD_DIR / "stopwords-iso-ja.txt"
"""The stopwords-iso Japanese entries that are one word of the kit's word rule (see data/stopwords/README.md)."""
STOPWORD_LISTS = {"inquery": INQUERY, "nltk": NLTK_ENGLISH, "zh": CHINESE, "ja": JAPANESE}
"""The vendored lists by name; ``load_stopwords("nltk+inquery")`` reads their union (PROP's original code)."""
LANGUAGE_STOPWORDS = {"zh": "zh", "ja": "ja"}
"""The vendored list a corpus of a language other than English gets when ``--stopwords`` is not given."""
STEMMERS = {"en": "porter"}
"""The stemming algorithm (PyStemmer's name) per corpus language for PROP's ``stem`` option: English gets Porter's,
as the original code's NLTK ``PorterStemmer`` (whose default mode adds a few rules of its own to Porter's algorithm, so
that some rare words stem differently); no other language has one here."""
MAX_DRAWS_PER_WORD = 1000
"""Draws tried per word before subsampling is declared exhausted (a document of only very frequent words)."""


def words(text: str) -> list[str]:
    """The words (runs of letters with their combining marks, digits and ``_`` excluded) of the lowercased
    text, in order; in scripts without spaces the words of the kit's word rule
    (:func:`~dataset_scripts.corpus.words.letter_words`)."""
    if is_spaced(text):
        return _WORD.findall(text.lower())
    return [word for word, _, _ in letter_words(text)]


def word_lists(texts: Sequence[str]) -> tuple[pa.Array, np.ndarray]:
    """:func:`words` of every text, flattened: ``(words, counts)``, ``counts[i]`` the number of words of text ``i``.

    The texts are split at once, by the same rule as :func:`words`, over their UTF-8 bytes
    (:func:`~dataset_scripts.tasks.word_arrays.letter_word_arrays`); texts in a script that ICU's dictionary cuts
    have their runs of it cut by ICU (:func:`~dataset_scripts.tasks.word_arrays.dictionary_script_words`)."""
    found, counts, dictionary = letter_word_arrays([text.lower() for text in texts])
    if not dictionary.any():
        return found, counts
    # the words of the texts in a dictionary script, then every text's words put back in text order
    chosen = np.flatnonzero(dictionary).tolist()
    others = dict(zip(chosen, dictionary_script_words([texts[i] for i in chosen]), strict=True))
    for i, own in others.items():
        counts[i] = len(own)
    starts = np.concatenate([[0], np.cumsum(counts)])
    found_starts = np.concatenate([[0], np.cumsum(np.where(dictionary, 0, counts))])
    order = np.empty(int(starts[-1]), dtype=np.int64)
    other_start = len(found)
    for i in range(len(texts)):
        span = slice(starts[i], starts[i + 1])
        if i in others:
            order[span] = np.arange(other_start, other_start + counts[i])
            other_start += counts[i]
        else:
            order[span] = np.arange(found_starts[i], found_starts[i] + counts[i])
    combined = pa.concat_arrays([found, pa.array(list(itertools.chain.from_iterable(others.values())), pa.string())])
    return combined.take(pa.array(order)), counts


def has_word(text: str) -> bool:
    """Whether :func:`words` finds any word in ``text`` (without listing them)."""
    return _WORD.search(text.lower()) is not None or not is_spaced(text) and bool(letter_words(text))


@lru_cache(maxsize=8)
def load_stopwords(path: str | Path | None = None) -> frozenset[str]:
    """A stopword list (one word a line, ``#`` comments ignored), lowercased; default: the vendored INQUERY list.

    ``path`` is a file, or names of the vendored lists (:data:`STOPWORD_LISTS`) joined by ``+`` for their union:
    ``"inquery"``, ``"nltk"``, ``"nltk+inquery"`` (the original PROP code's NLTK English + INQUERY).

    Raises:
        FileNotFoundError: the file does not exist (the message names it).
    """
    names = str(path).split("+") if path else ["inquery"]
    if all(name in STOPWORD_LISTS for name in names):
        return frozenset().union(*(_read_stopwords(STOPWORD_LISTS[name]) for name in names))
    return _read_stopwords(Path(path))


def _read_stopwords(path: Path) -> frozenset[str]:
    if not path.is_file():
        known = ", ".join(STOPWORD_LISTS)
        raise FileNotFoundError(f"stopword list {path} not found (nor is it a vendored list name: {known}, '+'-joined)")
    lines = path.read_text(encoding="utf-8").splitlines()
    return frozenset(w.strip().lower() for w in lines if w.strip() and not w.lstrip().startswith("#"))


def stemmer_algorithm(language: str) -> str | None:
    """The stemming algorithm of a corpus language (``en-GB`` as ``en``); ``None``: there is none."""
    return STEMMERS.get(language.split("-")[0])


def stemmer(language: str = "en") -> Callable[[list[str]], list[str]]:
    """The stemmer of a corpus language (:data:`STEMMERS`): a function from a list of words to their stems.

    A language without one is refused rather than stemmed by English rules, which would cut its words at
    English suffixes; the build turns ``stem`` off for such a corpus and says so.

    Raises:
        ValueError: no stemmer for ``language`` (the message names the languages there are).
    """
    algorithm = stemmer_algorithm(language)
    if algorithm is None:
        raise ValueError(f"no stemmer for language {language!r} (there is one for: {', '.join(STEMMERS)})")
    import Stemmer

    return Stemmer.Stemmer(algorithm).stemWords


def content_words(text: str, stopwords: frozenset[str]) -> list[str]:
    """The words of ``text`` that are not stopwords, in order."""
    return [w for w in words(text) if w not in stopwords]


def poisson_length(rng: random.Random, lam: float) -> int:
    """A word-set length from Poisson(``lam``), drawn again while it is 0 (PROP's Algorithm 1: x = 1, 2, 3, ...).

    Knuth's product-of-uniforms method on ``rng``, so the stream is the same on every machine.
    """
    if lam <= 0:
        raise ValueError(f"the Poisson mean must be > 0, got {lam}")
    limit = math.exp(-lam)
    while True:
        k, product = 0, rng.random()
        while product > limit:
            k += 1
            product *= rng.random()
        if k > 0:
            return k


def normal_length(rng: random.Random, mean: float = 3.0, std: float = 1.0, tries: int = 100) -> int:
    """A query length as the HARP code draws it: ``int(N(mean, std))``, truncated towards zero (not rounded), drawn
    again while it is < 1, at most ``tries`` times more, then 3 (``sample_query_from_sentence`` in its
    ``utils/utils.py``)."""
    k = int(rng.gauss(mean, std))
    for _ in range(tries):
        if k >= 1:
            return k
        k = int(rng.gauss(mean, std))
    return k if k >= 1 else 3


def _sorted_content(distinct: pa.Array, stopwords: frozenset[str]) -> tuple[list[str], np.ndarray]:
    """The distinct words that are not stopwords, sorted, and each distinct word's position among them (-1: a
    stopword)."""
    import pyarrow.compute as pc

    stop = pc.is_in(distinct, value_set=pa.array(sorted(stopwords), pa.string())).to_numpy(zero_copy_only=False)
    content = np.flatnonzero(~stop)
    ordered = content[pc.sort_indices(distinct.take(pa.array(content))).to_numpy()]
    renumber = np.full(len(distinct), -1, dtype=np.int64)
    renumber[ordered] = np.arange(len(ordered))
    return distinct.take(pa.array(ordered)).to_pylist(), renumber


@dataclass(frozen=True)
class UnitTokens:
    """The documents of one work unit tokenised once: each document's content words (stopwords removed) as ids
    into the unit's own sorted word list, and that list's corpus and document frequencies.

    PROP's statistics stage keeps these on disk beside the counts, so that the rows stage maps ids onto the
    vocabulary instead of tokenising every document a second time.

    Args:
        words: the distinct content words of the unit, sorted.
        cf: per word of ``words``, its occurrences in the unit.
        df: per word of ``words``, the documents of the unit it occurs in.
        offsets: ``[documents + 1]``: document ``i``'s ids are ``ids[offsets[i]:offsets[i + 1]]``.
        ids: every document's content words, in text order, as positions in ``words``.
        has_words: per document, whether it has any word at all (stopwords included).
        surfaces: with ``stem``, the unit's content words themselves (``word``), the position in ``words`` of
            their stem (``stem``) and their occurrences in the unit (``count``); ``None`` without.
    """

    words: list[str]
    cf: np.ndarray
    df: np.ndarray
    offsets: np.ndarray
    ids: np.ndarray
    has_words: np.ndarray
    surfaces: pa.Table | None = None

    @classmethod
    def from_texts(
        cls, texts: Iterable[str], stopwords: frozenset[str], stem: Callable[[list[str]], list[str]] | None = None
    ) -> UnitTokens:
        """Tokenise the documents (:func:`words`), drop the stopwords, stem the rest with ``stem`` if given
        (:func:`stemmer`; ``words`` then holds stems) and count."""
        every_word, lengths = word_lists(list(texts))
        # one dictionary encoding of the unit's tokens (C speed), then everything by word id
        encoded = every_word.dictionary_encode()
        indices = encoded.indices.to_numpy(zero_copy_only=False)
        if stem:
            seen = encoded.dictionary.to_pylist()
            surface = [w for w in seen if w not in stopwords]
            terms = stem(surface)
            content = sorted(set(terms))
            position = {w: i for i, w in enumerate(content)}
            term_of = {w: position[t] for w, t in zip(surface, terms, strict=True)}
            renumber = np.array([term_of.get(w, -1) for w in seen], dtype=np.int64)
        else:  # the distinct words sorted by Arrow: UTF-8's byte order is the code points' order, as sorted()'s
            content, renumber = _sorted_content(encoded.dictionary, stopwords)
        every = renumber[indices] if len(renumber) else np.zeros(0, np.int64)
        kept = every >= 0
        document = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)[kept]
        ids = every[kept].astype(np.int32)
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(np.bincount(document, minlength=len(lengths)), out=offsets[1:])
        cf = np.bincount(ids, minlength=len(content)).astype(np.int64)
        pairs = np.sort(document * max(len(content), 1) + ids)
        distinct = pairs[np.concatenate([[True], pairs[1:] != pairs[:-1]])] if len(pairs) else pairs  # (document, word)
        df = np.bincount(distinct % max(len(content), 1), minlength=len(content)).astype(np.int64)
        surfaces = None
        if stem:
            occurrences = np.bincount(indices, minlength=len(seen)).astype(np.int64) if len(seen) else renumber
            own = renumber >= 0
            surfaces = pa.table(
                {
                    "stem": pa.array(renumber[own], pa.int64()),
                    "word": pa.array([w for w, k in zip(seen, own.tolist(), strict=True) if k], pa.string()),
                    "count": pa.array(occurrences[own], pa.int64()),
                }
            )
        return cls(content, cf, df, offsets, ids, lengths > 0, surfaces)

    @property
    def documents(self) -> int:
        """Documents tokenised."""
        return len(self.has_words)


def uniforms(rng: random.Random, count: int) -> np.ndarray:
    """``count`` floats uniform in [0, 1) from ``rng`` in one call: 53 random bits each, as ``rng.random()``
    makes them, read from ``rng.randbytes`` (the same stream on every machine)."""
    raw = np.frombuffer(rng.randbytes(8 * count), dtype="<u8")
    return (raw >> np.uint64(11)).astype(np.float64) * 2.0**-53


class CollectionModel:
    """The background model P(w|C) over the vocabulary V, the subsampling keep probabilities and mu.

    Words of V are also known by their position in the sorted :attr:`vocabulary` (their id), by which documents
    are sampled.

    Args:
        cf: corpus frequency per word (stopwords already removed).
        df: document frequency per word.
        documents: documents in the corpus.
        total_words: all (non-stopword) words of the corpus, in V or not.
        min_count: the vocabulary cut: V = words with ``cf >= min_count``.
        subsample: word2vec's threshold t (0 = no subsampling).
        background: ``"cf"`` (the paper) or ``"df"`` (the original code).
        surfaces: with stemming, the words of each stem of V with their corpus counts (``{stem: {word: count}}``,
            the original code's ``stem2pos``): :meth:`shown` draws one of them per stem; ``None`` = words are shown
            as they are.
        stem: the stemmer the counts were made with (:func:`stemmer`), for documents tokenised later; ``None`` =
            no stemming.
    """

    def __init__(
        self,
        cf: Mapping[str, int],
        df: Mapping[str, int],
        documents: int,
        total_words: int,
        min_count: int = 50,
        subsample: float = 1e-5,
        background: str = "cf",
        surfaces: Mapping[str, Mapping[str, int]] | None = None,
        stem: Callable[[list[str]], list[str]] | None = None,
    ):
        check_choice("background", background, BACKGROUNDS)
        if documents <= 0:
            raise ValueError("the collection model needs at least one document")
        self.vocabulary = sorted(w for w, c in cf.items() if c >= min_count)
        self.index = {w: i for i, w in enumerate(self.vocabulary)}
        """Each word of V's id (its position in :attr:`vocabulary`)."""
        weights = np.array([(cf if background == "cf" else df)[w] for w in self.vocabulary], dtype=np.float64)
        mass = float(weights.sum())
        self.background = weights / mass if mass else weights
        """P(w|C) by word id."""
        self._cumulative = np.cumsum(self.background)
        self.mu = sum(cf[w] for w in self.vocabulary) / documents
        """Dirichlet mu: the average document length, in words of V (the length |D| is counted the same way)."""
        self.keep = {
            w: 1.0 if subsample <= 0 else min(1.0, math.sqrt(subsample / f) + subsample / f)
            for w in self.vocabulary
            for f in (cf[w] / total_words,)
        }
        self.keep_by_id = np.array([self.keep[w] for w in self.vocabulary], dtype=np.float64)
        self.stem = stem
        self._surfaces: list[tuple[list[str], np.ndarray]] | None = None
        if surfaces is not None:
            self._surfaces = []
            for w in self.vocabulary:
                forms = sorted((surfaces.get(w) or {w: 1}).items())
                weights = np.cumsum([math.log1p(count) for _, count in forms])
                self._surfaces.append(([form for form, _ in forms], weights))

    def __len__(self) -> int:
        return len(self.vocabulary)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def terms(self, words: list[str]) -> list[str]:
        """What the model counts of the given content words: their stems with stemming, else the words."""
        return self.stem(words) if self.stem else words

    def shown(self, rng: random.Random, ids: Iterable[int]) -> list[str]:
        """The words of V by id as a row shows them: each stem as one of its corpus words, drawn with ``rng`` in
        proportion to log(1 + the word's count) (without stemming the words themselves, ``rng`` untouched)."""
        if self._surfaces is None:
            return [self.vocabulary[i] for i in ids]
        shown = []
        for i in ids:
            forms, cumulative = self._surfaces[i]
            pick = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
            shown.append(forms[min(pick, len(forms) - 1)])
        return shown

    def ids(self, words: Iterable[str]) -> np.ndarray:
        """The ids of the given words that are in V, in order (the others left out)."""
        index = self.index
        return np.fromiter((index[w] for w in words if w in index), dtype=np.int64)

    def sample_ids(self, points: np.ndarray) -> np.ndarray:
        """The words of V drawn from P(w|C) by uniform ``points`` in [0, 1) (inverse CDF)."""
        found = np.searchsorted(self._cumulative, points * self._cumulative[-1], side="right")
        return np.minimum(found, len(self.vocabulary) - 1)


class DocumentModel:
    """A document's unigram model with Dirichlet smoothing over the collection model (eq. 3 of PROP).

    Args:
        text: the document text.
        collection: the collection model.
        stopwords: the stopword list.
    """

    def __init__(self, text: str, collection: CollectionModel, stopwords: frozenset[str]):
        self._set(collection.ids(collection.terms(content_words(text, stopwords))), collection)

    @classmethod
    def from_ids(cls, ids: np.ndarray, collection: CollectionModel) -> DocumentModel:
        """The model of a document given its words of V as ids, in text order."""
        model = cls.__new__(cls)
        model._set(np.asarray(ids, dtype=np.int64), collection)
        return model

    def _set(self, ids: np.ndarray, collection: CollectionModel) -> None:
        self.collection = collection
        self.ids = ids
        """The document's words of V (ids), in text order: |D| = their number, c(w, D) their counts."""
        self.length = len(ids)
        self._sorted: np.ndarray | None = None
        self.candidates: np.ndarray | None = None
        """With :meth:`restrict_draws`: the ids sets are drawn from (``None``: all of V)."""
        self._candidate_cdf: np.ndarray | None = None

    def restrict_draws(self, rng: random.Random, sample: int) -> None:
        """Draw from the document's distinct words plus corpus words sampled by P(w|C) (``sample`` draws, with
        replacement, those in the document left out; the document's word count + 100 draws when it has
        ``sample`` distinct words or more), P(w|D) renormalised over them: PROP's original code (K = 500).
        Likelihoods stay P(w|D)."""
        own = np.unique(self.ids)
        count = sample - len(own) if sample > len(own) else len(own) + 100
        drawn = self.collection.sample_ids(uniforms(rng, count))
        self.candidates = np.union1d(own, drawn)  # sorted ids: the document's and the sampled ones
        self._candidate_cdf = np.cumsum(self._probabilities(self.candidates))

    def _counts(self, ids: np.ndarray) -> np.ndarray:
        """c(w, D) of each id."""
        if self._sorted is None:
            self._sorted = np.sort(self.ids)
        return np.searchsorted(self._sorted, ids, side="right") - np.searchsorted(self._sorted, ids, side="left")

    def probability(self, word: str) -> float:
        """P(w|D) = (c(w, D) + mu P(w|C)) / (|D| + mu); 0 for a word outside V."""
        if word not in self.collection.index:
            return 0.0
        return self._probabilities(np.array([self.collection.index[word]]))[0]

    def _probabilities(self, ids: np.ndarray) -> list[float]:
        mu = self.collection.mu
        return ((self._counts(ids) + mu * self.collection.background[ids]) / (self.length + mu)).tolist()

    def log_likelihoods(self, sets: list[np.ndarray]) -> list[float]:
        """log P(S|D) of each set of ids; an exact sum (``math.fsum``), so that two sets of the same words in
        another order tie exactly."""
        values = self._probabilities(np.concatenate(sets)) if sets else []
        results, start = [], 0
        for ids in sets:
            results.append(math.fsum(map(math.log, values[start : start + len(ids)])))
            start += len(ids)
        return results

    def sample_sets(self, rng: random.Random, sizes: list[int]) -> list[np.ndarray | None]:
        """Word sets of the given sizes (ids), one after the other, drawn with replacement from P(w|D) thinned by
        subsampling; a set is ``None`` when subsampling rejected :data:`MAX_DRAWS_PER_WORD` draws in a row.

        Draws are made in vectorised blocks, two uniforms each: the first picks the document's words with
        probability |D| / (|D| + mu) (uniformly among its occurrences: c(w, D) / |D|) or else P(w|C) (its
        rescaled remainder is again uniform), the second keeps the word with probability keep(w). Kept words fill
        the sets in draw order, which is the sequential draw-until-kept of word2vec's subsampling."""
        if any(size < 1 for size in sizes):
            raise ValueError(f"word-set sizes must be >= 1, got {sizes}")
        collection, length = self.collection, self.length
        total = length + collection.mu
        results: list[np.ndarray | None] = []
        current: list[int] = []
        rejected = 0  # draws rejected since the last kept one
        block = 8 * sum(sizes)
        while len(results) < len(sizes):
            first, second = uniforms(rng, 2 * block).reshape(2, block)
            if self.candidates is not None:
                cdf = self._candidate_cdf
                found = np.searchsorted(cdf, first * cdf[-1], side="right")
                drawn = self.candidates[np.minimum(found, len(cdf) - 1)]
            else:
                point = first * total
                drawn = collection.sample_ids((point - length) / collection.mu)
                if length:
                    own = self.ids[np.minimum(point.astype(np.int64), length - 1)]
                    drawn = np.where(point < length, own, drawn)
            previous = -1
            for position in np.flatnonzero(second < collection.keep_by_id[drawn]).tolist():
                rejected += position - previous - 1
                previous = position
                while rejected >= MAX_DRAWS_PER_WORD and len(results) < len(sizes):  # the set in progress fails
                    results.append(None)
                    current, rejected = [], rejected - MAX_DRAWS_PER_WORD
                if len(results) == len(sizes):
                    break
                current.append(int(drawn[position]))
                rejected = 0
                if len(current) == sizes[len(results)]:
                    results.append(np.array(current, dtype=np.int64))
                    current = []
                    if len(results) == len(sizes):
                        break
            else:
                rejected += block - previous - 1
                while rejected >= MAX_DRAWS_PER_WORD and len(results) < len(sizes):
                    results.append(None)
                    current, rejected = [], rejected - MAX_DRAWS_PER_WORD
            block = min(2 * block, 1 << 16)
        return results
