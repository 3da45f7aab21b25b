"""The Chinese recipe: its config loads, and a Chinese corpus gets Chinese stopwords for PROP and HARP."""

from dataset_scripts.tasks.build import BuildOptions, language_stopwords
from dataset_scripts.tasks.language_model import load_stopwords
from tests.conftest import PROJECT_ROOT
from training.arguments import parse_arguments


def test_the_chinese_config_names_the_papers_chinese_backbone():
    model, _, training = parse_arguments(
        [str(PROJECT_ROOT / "configs" / "wikiformer-chinese.yaml"), "--use_cpu", "true"]
    )
    assert model.model_name_or_path == "hfl/chinese-bert-wwm-ext"
    assert training.output_dir == "output/wikiformer-chinese"


def test_a_chinese_corpus_gets_the_vendored_chinese_stopwords(capsys):
    build = BuildOptions(inputs=("x",), output_dir="out", tasks=("prop", "rqp"))
    chinese = language_stopwords(build, "zh")
    assert chinese.prop.stopwords == chinese.harp.stopwords == "zh"
    assert {"的", "了", "是"} <= load_stopwords("zh") and "the" not in load_stopwords("zh")
    assert language_stopwords(build, "en") == build
    given = BuildOptions(inputs=("x",), output_dir="out", tasks=("prop",))
    assert language_stopwords(given, "ja") == given
    assert "--stopwords" in capsys.readouterr().err  # Japanese has no vendored list: the option is named
