"""The unigram language models behind PROP's word-set sampling (and HARP's stopwords and query lengths).

PROP (Ma et al., WSDM 2021, section 3.1 and Algorithm 1) samples a pair of word sets from a document's language
model with Dirichlet smoothing,

    P(w|D) = (c(w, D) + mu * P(w|C)) / (|D| + mu),        mu = the average document length,

and calls the set with the higher likelihood prod P(w|D) the positive. Its section 4.4.2: word-set length
l ~ Poisson(3) (resampled until l > 0), INQUERY stopwords removed, words occurring fewer than 50 times in the
corpus discarded, word2vec's subsampling of frequent words with threshold 1e-5, words drawn with replacement.

How that is computed here (also stated in the PROP dataset card):

- Words are the runs of letters of the lowercased text (the original code's ``[a-zA-Z]+``, widened to every
  script so that accented and non-Latin words stay whole), stopwords removed.
- The vocabulary V holds the words with a corpus frequency of at least ``min_count``. ``c(w, D)`` and ``|D|`` count
  only words of V, so P(w|D) sums to 1 over V, and a draw from it is exactly a draw from the document's own words
  with probability |D| / (|D| + mu), else from the collection model P(w|C) (no top-K cut as in the original code).
- ``background="cf"`` (the paper: "word counts in the entire collection"): P(w|C) = cf(w) / sum of cf over V;
  ``"df"`` (the original code): document frequency normalised over V.
- Subsampling rejects a drawn word with probability 1 - keep(w), keep(w) = sqrt(t/f) + t/f with f = cf(w) / (all
  words of the corpus), as word2vec's C code (and PROP's) does; a word set therefore follows P(w|D) x keep(w), and
  its likelihood is still scored with P(w|D).
"""

from __future__ import annotations

import bisect
import math
import random
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_WORD = re.compile(r"[^\W\d_]+")
_STOPWORD_DIR = Path(__file__).resolve().parents[2] / "data" / "stopwords"
INQUERY = _STOPWORD_DIR / "inquery.txt"
"""The vendored INQUERY stopword list (418 words; see data/stopwords/README.md)."""
NLTK_ENGLISH = _STOPWORD_DIR / "nltk-english.txt"
"""The vendored NLTK English stopword list (179 words; see data/stopwords/README.md)."""
STOPWORD_LISTS = {"inquery": INQUERY, "nltk": NLTK_ENGLISH}
"""The vendored lists by name; ``load_stopwords("nltk+inquery")`` reads their union (PROP's original code)."""
BACKGROUNDS = ("cf", "df")
MAX_DRAWS_PER_WORD = 1000
"""Draws tried per word before subsampling is declared exhausted (a document of only very frequent words)."""


def words(text: str) -> list[str]:
    """The words (runs of letters, digits and ``_`` excluded) of the lowercased text, in order."""
    return _WORD.findall(text.lower())


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


def normal_length(rng: random.Random, mean: float = 3.0, std: float = 1.0) -> int:
    """A query length from N(``mean``, ``std``) rounded to the nearest integer, drawn again until it is > 0
    (the HARP code's query sizes)."""
    while True:
        k = round(rng.gauss(mean, std))
        if k > 0:
            return k


@dataclass(frozen=True)
class CorpusCounts:
    """What one pass over a corpus counts for the collection model (mergeable across shards).

    Args:
        documents: documents counted.
        words: all non-stopword words of the corpus (the subsampling frequency's denominator).
        cf: corpus frequency of every non-stopword word.
        df: document frequency of every non-stopword word.
    """

    documents: int
    words: int
    cf: Counter
    df: Counter

    @classmethod
    def from_texts(cls, texts: Iterable[str], stopwords: frozenset[str]) -> CorpusCounts:
        """Count the content words of the given documents."""
        # every token counted at C speed (Counter.update of a list or set), stopwords dropped once at the end
        cf, df, documents = Counter(), Counter(), 0
        for text in texts:
            every = words(text)
            cf.update(every)
            df.update(set(every))
            documents += 1
        for word in stopwords.intersection(cf):
            del cf[word], df[word]
        return cls(documents, sum(cf.values()), cf, df)


class CollectionModel:
    """The background model P(w|C) over the vocabulary V, the subsampling keep probabilities and mu.

    Args:
        cf: corpus frequency per word (stopwords already removed).
        df: document frequency per word.
        documents: documents in the corpus.
        total_words: all (non-stopword) words of the corpus, in V or not.
        min_count: the vocabulary cut: V = words with ``cf >= min_count``.
        subsample: word2vec's threshold t (0 = no subsampling).
        background: ``"cf"`` (the paper) or ``"df"`` (the original code).
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
    ):
        if background not in BACKGROUNDS:
            raise ValueError(f"background must be one of {BACKGROUNDS}, got {background!r}")
        if documents <= 0:
            raise ValueError("the collection model needs at least one document")
        self.vocabulary = sorted(w for w, c in cf.items() if c >= min_count)
        weights = [(cf if background == "cf" else df)[w] for w in self.vocabulary]
        mass = float(sum(weights))
        self.probability = {w: c / mass for w, c in zip(self.vocabulary, weights, strict=True)} if mass else {}
        self._cumulative = []
        running = 0.0
        for c in weights:
            running += c / mass
            self._cumulative.append(running)
        self.mu = sum(cf[w] for w in self.vocabulary) / documents
        """Dirichlet mu: the average document length, in words of V (the length |D| is counted the same way)."""
        self.keep = {
            w: 1.0 if subsample <= 0 else min(1.0, math.sqrt(subsample / f) + subsample / f)
            for w in self.vocabulary
            for f in (cf[w] / total_words,)
        }

    def __len__(self) -> int:
        return len(self.vocabulary)

    def __contains__(self, word: str) -> bool:
        return word in self.probability

    def sample(self, rng: random.Random) -> str:
        """One word drawn from P(w|C)."""
        index = bisect.bisect_right(self._cumulative, rng.random() * self._cumulative[-1])
        return self.vocabulary[min(index, len(self.vocabulary) - 1)]


class DocumentModel:
    """A document's unigram model with Dirichlet smoothing over the collection model (eq. 3 of PROP).

    Args:
        text: the document text.
        collection: the collection model.
        stopwords: the stopword list.
    """

    def __init__(self, text: str, collection: CollectionModel, stopwords: frozenset[str]):
        self._set(self._in_vocabulary(content_words(text, stopwords), collection), collection)

    @classmethod
    def from_content_words(cls, content: list[str], collection: CollectionModel) -> DocumentModel:
        """The model of a document given its words without stopwords (tokenised once by the caller)."""
        model = cls.__new__(cls)
        model._set(cls._in_vocabulary(content, collection), collection)
        return model

    @classmethod
    def from_words(cls, every: list[str], collection: CollectionModel, stopwords: frozenset[str]) -> DocumentModel:
        """The model of a document given all its words, stopwords included (filtered in one pass)."""
        probability = collection.probability
        model = cls.__new__(cls)
        model._set([w for w in every if w in probability and w not in stopwords], collection)
        return model

    @staticmethod
    def _in_vocabulary(content: list[str], collection: CollectionModel) -> list[str]:
        probability = collection.probability
        return [w for w in content if w in probability]

    def _set(self, vocabulary_words: list[str], collection: CollectionModel) -> None:
        self.collection = collection
        self.words = vocabulary_words
        self.counts = Counter(self.words)
        self.length = len(self.words)

    def probability(self, word: str) -> float:
        """P(w|D) = (c(w, D) + mu P(w|C)) / (|D| + mu); 0 for a word outside V."""
        mu = self.collection.mu
        return (self.counts.get(word, 0) + mu * self.collection.probability.get(word, 0.0)) / (self.length + mu)

    def log_likelihood(self, word_set: Iterable[str]) -> float:
        """log P(S|D) = sum over the set's words (repeats counted) of log P(w|D) (eq. 2 of PROP)."""
        return sum(math.log(self.probability(w)) for w in word_set)

    def draw(self, rng: random.Random) -> str:
        """One word from P(w|D): the document's own words with probability |D| / (|D| + mu), else P(w|C)."""
        if self.length and rng.random() * (self.length + self.collection.mu) < self.length:
            return self.words[rng.randrange(self.length)]
        return self.collection.sample(rng)

    def sample_set(self, rng: random.Random, size: int) -> list[str] | None:
        """``size`` words drawn with replacement from P(w|D) thinned by subsampling; ``None`` when subsampling
        rejected :data:`MAX_DRAWS_PER_WORD` draws in a row."""
        # draw() and CollectionModel.sample() inlined, the same random numbers in the same order: this loop runs
        # ~10 times per kept word at the paper's threshold and was the largest cost of a PROP build
        collection, random_ = self.collection, rng.random
        length, words, keep = self.length, self.words, collection.keep
        total = self.length + collection.mu
        cumulative, vocabulary = collection._cumulative, collection.vocabulary
        mass, last = cumulative[-1], len(vocabulary) - 1
        chosen: list[str] = []
        while len(chosen) < size:
            for _ in range(MAX_DRAWS_PER_WORD):
                if length and random_() * total < length:
                    word = words[rng.randrange(length)]
                else:
                    word = vocabulary[min(bisect.bisect_right(cumulative, random_() * mass), last)]
                if random_() < keep[word]:
                    chosen.append(word)
                    break
            else:
                return None
        return chosen
