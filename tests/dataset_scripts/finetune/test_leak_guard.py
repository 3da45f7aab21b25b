"""Training refuses to choose or report on queries its fine-tuning groups were mined from."""

from __future__ import annotations

import pytest

from wikiformer_kit.dataset_scripts.finetune.build import build_groups
from wikiformer_kit.dataset_scripts.finetune.options import MiningOptions
from wikiformer_kit.dataset_scripts.finetune.output import mined_from
from wikiformer_kit.dataset_scripts.finetune.sources import load_source
from wikiformer_kit.training.arguments import DataArguments
from wikiformer_kit.training.evaluation import check_no_trained_queries


def test_groups_of_train_may_not_meet_test_or_the_whole_collection(handmade, tmp_path, monkeypatch):
    out = tmp_path / "groups"
    build_groups(load_source(str(handmade)), out, MiningOptions(depth=40))  # every query: the whole collection
    assert mined_from(out) == str(handmade.resolve())
    train = tmp_path / "train-groups"
    monkeypatch.setattr(
        "wikiformer_kit.eval.splits.in_part", lambda qid, part: True
    )  # every query in every part: groups exist
    build_groups(load_source(f"{handmade}#train"), train, MiningOptions(depth=40))
    monkeypatch.undo()
    assert mined_from(train).endswith("#train")
    monkeypatch.chdir(handmade.parent)  # relative specs name the same folder
    with pytest.raises(ValueError, match="shares queries"):
        check_no_trained_queries(DataArguments(train_datasets=[str(out)], eval_dir="handmade#dev"))
    for leaking in (["handmade#test"], ["handmade"], ["handmade#train"]):
        with pytest.raises(ValueError, match="#heldout"):
            check_no_trained_queries(DataArguments(train_datasets=[str(train)], test_dirs=leaking))
    check_no_trained_queries(
        DataArguments(train_datasets=[str(train)], eval_dir="handmade#dev", test_dirs=["handmade#heldout"])
    )
    assert mined_from(tmp_path) is None
