"""The Chinese recipe: its config loads, and a Chinese or Japanese corpus gets its stopwords for PROP and HARP."""

from tests.conftest import PROJECT_ROOT
from wikiformer_kit.dataset_scripts.corpus.words import letter_words
from wikiformer_kit.dataset_scripts.tasks.build import BuildOptions, language_stopwords
from wikiformer_kit.dataset_scripts.tasks.language_model import content_words, load_stopwords
from wikiformer_kit.training.arguments import parse_arguments


def test_the_chinese_config_names_the_papers_chinese_backbone():
    model, _, training = parse_arguments(
        [str(PROJECT_ROOT / "wikiformer_kit" / "configs" / "wikiformer-chinese.yaml"), "--use_cpu", "true"]
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
    assert language_stopwords(given, "el") == given
    assert "--stopwords" in capsys.readouterr().err  # Greek has no vendored list: the option is named


def test_a_japanese_corpus_gets_the_vendored_japanese_stopwords(capsys):
    build = BuildOptions(inputs=("x",), output_dir="out", tasks=("prop", "rqp"))
    japanese = language_stopwords(build, "ja")
    assert japanese.prop.stopwords == japanese.harp.stopwords == "ja" and capsys.readouterr().err == ""
    stopwords = load_stopwords("ja")
    assert len(stopwords) == 120 and {"の", "に", "は", "を", "から", "こと", "何"} <= stopwords
    # every entry is one word unit of the kit's word rule, so each can match: a kana run or one ideograph
    assert all([w for w, _, _ in letter_words(s)] == [s] for s in stopwords)
    # sentences of the vendored Japanese page: the particles go, the content words stay
    kept = content_words("全区間ATO制御による運転である。地下鉄の仲間であるが、全区間高架線を走る。", stopwords)
    assert {"による", "の", "を"}.isdisjoint(kept) and {"制", "運", "鉄", "線", "走"} <= set(kept)
