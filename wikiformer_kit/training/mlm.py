"""Whole-word masking for the joint MLM loss of PROP and HARP (BERT's ``create_masked_lm_predictions``).

PROP (section 4.4.2) and HARP (section 4.3.2) follow BERT: 15% of the input's words are selected for prediction,
each selected token replaced by [MASK] 80% of the time, by a random token 10% and kept 10%; the original PROP code
masks whole words, at most 60 predictions per sequence, on the document side only ("sampled words in
representative word sets are not considered to be masked"). Per pair here: the document's words (the word pieces
sharing a tokenizer word id) are shuffled and taken whole while the count of selected tokens stays within
``round(probability x document tokens)`` (at least 1) and ``max_predictions``.
"""

from __future__ import annotations

import torch


def whole_word_mask(
    input_ids: torch.Tensor,
    word_ids: list[list[int | None]],
    mask_token_id: int,
    vocab_size: int,
    probability: float = 0.15,
    max_predictions: int = 60,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Mask whole words of each row; returns ``(masked input_ids, labels)`` with -100 where nothing is predicted.

    Args:
        input_ids: ``[rows, length]`` token ids.
        word_ids: per row, for each position, the document word it belongs to (``None`` for the query side,
            special tokens and padding): only these positions can be masked.
        mask_token_id: the [MASK] id.
        vocab_size: random replacements are drawn from ``[0, vocab_size)``.
        probability: share of the document's tokens to predict.
        max_predictions: at most this many predicted tokens per row (0 = no cap).
        generator: the torch RNG (the global one by default).
    """
    masked, labels = input_ids.clone(), torch.full_like(input_ids, -100)
    for row, words in enumerate(word_ids):
        groups: dict[int, list[int]] = {}
        for position, word in enumerate(words):
            if word is not None:
                groups.setdefault(word, []).append(position)
        tokens = sum(len(g) for g in groups.values())
        if not tokens:
            continue
        budget = max(1, round(tokens * probability))
        if max_predictions:
            budget = min(budget, max_predictions)
        chosen: list[int] = []
        order = torch.randperm(len(groups), generator=generator).tolist()
        positions = list(groups.values())
        for index in order:
            if len(chosen) + len(positions[index]) <= budget:
                chosen.extend(positions[index])
            if len(chosen) == budget:
                break
        if not chosen:
            continue
        chosen_tensor = torch.tensor(chosen)
        labels[row, chosen_tensor] = input_ids[row, chosen_tensor]
        draw = torch.rand(len(chosen), generator=generator)
        to_mask = chosen_tensor[draw < 0.8]
        to_random = chosen_tensor[(draw >= 0.8) & (draw < 0.9)]
        masked[row, to_mask] = mask_token_id
        masked[row, to_random] = torch.randint(vocab_size, (len(to_random),), generator=generator)
    return masked, labels
