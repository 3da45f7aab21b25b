"""The group losses: softmax cross-entropy over a group (the paper, eq. 3-6), the pairwise hinge (PROP's and HARP's
equations) and the softmax margin both PROP's and HARP's code trained with."""

from __future__ import annotations

import torch


def group_scores(logits: torch.Tensor, group_mask: torch.Tensor) -> torch.Tensor:
    """Scatter pair logits ``[pairs, 1]`` into ``[groups, group_size]`` (float32), -inf in empty slots."""
    scores = torch.full(group_mask.shape, float("-inf"), dtype=torch.float32, device=logits.device)
    return scores.masked_scatter(group_mask, logits.view(-1).float())


def softmax_cross_entropy(scores: torch.Tensor) -> torch.Tensor:
    """Per-group ``-log softmax(scores)[positive]`` with the positive in slot 0 (eq. 3-6); empty slots are -inf."""
    return torch.logsumexp(scores, dim=1) - scores[:, 0]


def pairwise_hinge(scores: torch.Tensor, group_mask: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    """Per-group mean over its negatives of ``max(0, margin - s+ + s-)`` (PROP/HARP's pairwise loss)."""
    negatives = group_mask[:, 1:]
    hinge = torch.clamp(margin - scores[:, :1] + scores[:, 1:].masked_fill(~negatives, 0.0), min=0.0)
    return (hinge * negatives).sum(dim=1) / negatives.sum(dim=1).clamp(min=1)


def softmax_margin(scores: torch.Tensor, group_mask: torch.Tensor, margin: float = 1.0) -> torch.Tensor:
    """Per-group mean over its negatives of ``max(0, margin - p+ + p-)`` with ``p`` the softmax of the group's scores:
    the loss PROP's and HARP's original code trained with (``MarginRankingLoss(margin=1)`` on the softmax of the
    pair's two scores). For a pair and margin 1 it equals ``2 * sigmoid(s- - s+)``: never zero, unlike the hinge."""
    probabilities = torch.softmax(scores, dim=1)  # empty slots are -inf: probability 0
    negatives = group_mask[:, 1:]
    hinge = torch.clamp(margin - probabilities[:, :1] + probabilities[:, 1:], min=0.0)
    return (hinge * negatives).sum(dim=1) / negatives.sum(dim=1).clamp(min=1)
