"""``experiments/effectiveness.py`` on the vendored mini collections with a tiny checkpoint (``--model`` rows only)."""

from __future__ import annotations

import pytest

from tests.benchmarks.test_benches_cpu import run_bench
from tests.conftest import PROJECT_ROOT

MINIS = {"trec_dl20_passage": "dl20-mini", "cranfield": "cranfield-mini", "npl": "npl-mini"}


@pytest.fixture()
def mini_data(tmp_path):
    """A ``--data`` folder laid out like ``../shared/data/eval``, holding the vendored mini collections."""
    data = tmp_path / "data"
    data.mkdir()
    for name, mini in MINIS.items():
        (data / name).symlink_to(PROJECT_ROOT / "wikiformer_kit" / "data" / "samples" / "eval" / mini)
    return data


@pytest.fixture()
def tiny_checkpoint(tmp_path):
    import torch
    from transformers import AutoTokenizer

    from tests.modeling.conftest import minilm_path, tiny_config
    from wikiformer_kit.modeling_wikiformer import WikiformerForRanking, save_for_hub

    torch.manual_seed(0)
    return save_for_hub(
        WikiformerForRanking(tiny_config()), AutoTokenizer.from_pretrained(minilm_path()), tmp_path / "tiny", 64
    )


def test_checkpoint_rows_on_each_collection_with_a_test_part(mini_data, tiny_checkpoint, tmp_path):
    result = run_bench(
        "experiments.effectiveness",
        *("--studies", "--model", f"tiny={tiny_checkpoint}", "--data", str(mini_data), "--device", "cpu"),
        *("--collections", "dl20#test", "cranfield#test", "npl", "--max-queries", "3", "--depth", "5"),
        *("--max-length", "64", "--permutations", "200", "--output-dir", str(tmp_path / "out")),
        tmp_path=tmp_path,
    )
    out = result.stdout
    assert "device: CPU" in out and "fusion: zscore, alpha 0.7" in out
    table = out[out.index("Checkpoints") :]
    for column in ("dl20#test", "cranfield#test", "npl"):  # cranfield-mini#test has one query: no test
        assert column in table
    assert "tiny" in table and "bm25" in table.lower()


def test_tuning_on_the_part_a_test_collection_reports_is_refused(mini_data, capsys):
    from experiments.effectiveness import main

    tune_on = f"{mini_data / 'cranfield'}#dev"
    with pytest.raises(SystemExit) as raised:
        main(
            [
                "--studies",
                "--model",
                "x=y",
                "--data",
                str(mini_data),
                "--collections",
                "cranfield",
                "--tune-on",
                tune_on,
            ]
        )
    assert raised.value.code == 2 and "overlaps a test collection" in capsys.readouterr().err
    with pytest.raises(SystemExit) as raised:
        main(["--studies", "--model", "x=y", "--data", str(mini_data), "--collections", "cranf"])
    assert raised.value.code == 2 and "choose from dl20, cranfield, npl" in capsys.readouterr().err


def test_fusion_chosen_by_cross_validation_on_a_wikir_built_from_the_input(mini_data, tiny_checkpoint, tmp_path):
    from wikiformer_kit.release.options import SAMPLE_WIKIR_ARGS

    result = run_bench(
        "experiments.effectiveness",
        *("--studies", "--model", f"tiny={tiny_checkpoint}", "--data", str(mini_data), "--device", "cpu"),
        *("--collections", "npl", "--max-queries", "3", "--depth", "5", "--max-length", "64"),
        *("--tune-on", "wikir", "--wikir-args", SAMPLE_WIKIR_ARGS, "--permutations", "200"),
        *("--output-dir", str(tmp_path / "out")),
        tmp_path=tmp_path,
    )
    out = result.stdout
    assert "dataset_scripts.wikir --input" in out and (tmp_path / "out" / "wikir" / "validation").is_dir()
    assert "fusion chosen on wikir-en-validation (10 queries)" in out
    assert "5-fold cross-validation over 10 dev queries" in out
