"""The export stage: the trained model as a Hub-ready folder, and the untrained-head baseline it is compared with."""

from __future__ import annotations

import logging
from pathlib import Path


def export_model(train_dir: Path, model_dir: Path, max_length: int) -> None:
    """Save the trained model as a Hub-ready folder (weights, config with auto_map, code, tokenizer, CrossEncoder files)
    with one maximum pair length for every loader: the length it was evaluated at."""
    from transformers import AutoTokenizer

    from wikiformer_kit.modeling_wikiformer import WikiformerForRanking, save_for_hub

    model = WikiformerForRanking.from_pretrained(train_dir)  # the class of the checkpoint's encoder
    tokenizer = AutoTokenizer.from_pretrained(train_dir)
    model.config.query_max_length = min(model.config.query_max_length, max_length // 2)
    # BERT: [CLS], 2 x [SEP]; XLM-R: <s>, 3 x </s>
    specials = tokenizer.num_special_tokens_to_add(pair=True)
    model.config.document_max_length = max_length - model.config.query_max_length - specials
    save_for_hub(model, tokenizer, model_dir, max_length=max_length)


def fresh_head_baseline(config: dict, model_dir: Path, seed: int) -> None:
    """The starting checkpoint with an untrained (seeded random) head: what the evaluation compares against."""
    import torch
    from transformers import AutoTokenizer

    from wikiformer_kit.modeling_wikiformer import WikiformerForRanking, save_for_hub
    from wikiformer_kit.train import resolve_model_path

    path = resolve_model_path(config.get("model_name_or_path", "embedded:minilm"))
    torch.manual_seed(seed)
    # the new head is this baseline's point; its "randomly initialised head" notice would read as the model's
    notices = logging.getLogger("transformers.wikiformer")
    level = notices.level
    notices.setLevel(logging.ERROR)
    try:
        model = WikiformerForRanking.from_bert(path)
    finally:
        notices.setLevel(level)
    save_for_hub(model, AutoTokenizer.from_pretrained(path), model_dir)
