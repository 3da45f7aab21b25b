"""End-matter sections (References, External links, See also, ...) are not task nodes: on the real enwiki sample."""

from __future__ import annotations

import pytest

from wikiformer_kit.benchmarks.languages import write_dump
from wikiformer_kit.dataset_scripts.corpus.article import Article
from wikiformer_kit.dataset_scripts.corpus.end_matter import end_matter_names, is_end_matter
from wikiformer_kit.dataset_scripts.corpus.extract import read_articles
from wikiformer_kit.dataset_scripts.corpus.formats import mediawiki_xml
from wikiformer_kit.dataset_scripts.corpus.see_also import heading_key
from wikiformer_kit.dataset_scripts.tasks.common import END_MATTER_SKIP, count_words, end_matter, task_rng
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.registry import SPECS

NAMES = end_matter_names("en")
ARTICLE_SAMPLERS = {spec.name: spec.sampler for spec in SPECS if spec.sampler is not None}  # SRR, RWI, ATI


@pytest.fixture(scope="module")
def sample(enwiki_sample) -> dict[str, Article]:
    return {a.title: a for a in read_articles(mediawiki_xml, enwiki_sample) if isinstance(a, Article)}


def _rows(articles, options):
    rows, skipped = {task: [] for task in ARTICLE_SAMPLERS}, {task: 0 for task in ARTICLE_SAMPLERS}
    for article in articles:
        for task, sampler in ARTICLE_SAMPLERS.items():
            out = sampler(article, task_rng(options.seed, task, article.id), options)
            rows[task].extend(out.groups)
            skipped[task] += out.skipped[END_MATTER_SKIP]
    return rows, skipped


def _end_matter_texts(articles) -> set[str]:
    return {
        s.text.strip()
        for a in articles
        for i, s in enumerate(a.sections)
        if i in end_matter(a) and count_words(s.text) >= 20
    }


def test_names_per_language_include_see_also():
    assert {"references", "external links", "further reading", "see also", "bibliography", "notes"} <= NAMES
    assert "weblinks" in end_matter_names("de") and "siehe auch" in end_matter_names("de")
    assert "weblinks" not in NAMES
    assert is_end_matter(["Albedo", "External links"], NAMES)
    assert is_end_matter(["X", "References", "Books"], NAMES)  # inside end matter
    assert not is_end_matter(["X", "History"], NAMES)
    assert not is_end_matter(["References"], NAMES)  # an article titled so is not a section


def test_albedo_by_hand(sample):
    albedo = sample["Albedo"]
    titles = [s.title for s in albedo.sections]
    left_out = [albedo.sections[i].title for i in sorted(end_matter(albedo))]
    assert "External links" in titles and "External links" in left_out
    assert "References" in left_out
    assert all(heading_key(t) not in NAMES for t in titles if t not in left_out)


def test_no_end_matter_node_in_the_sample_rows(sample):
    articles = list(sample.values())
    rows, skipped = _rows(articles, TaskOptions())
    end_texts = _end_matter_texts(articles)
    assert len(end_texts) > 100  # the sample has plenty
    for task in ("srr", "rwi"):
        assert rows[task]
        assert not [r["path"] for r in rows[task] if any(heading_key(t) in NAMES for t in r["path"][1:])]
    for row in rows["srr"] + rows["ati"]:
        assert row["positive"] not in end_texts
        assert not set(row["negatives"]) & end_texts
    assert not {r["document"] for r in rows["rwi"]} & end_texts
    assert all(count > 100 for count in skipped.values()), skipped  # counted (the dataset card shows the count)


def test_keep_sections_keeps_them(sample):
    articles = list(sample.values())
    rows, skipped = _rows(articles, TaskOptions(keep_end_matter=True))
    end_texts = _end_matter_texts(articles)
    assert skipped == {task: 0 for task in ARTICLE_SAMPLERS}
    kept = [r for r in rows["srr"] + rows["ati"] if r["positive"] in end_texts or set(r["negatives"]) & end_texts]
    assert kept


def test_names_of_other_languages_and_their_variants():
    assert {"литература", "ссылки", "примечания"} <= end_matter_names("ru")
    assert {"джерела", "посилання"} <= end_matter_names("uk")
    assert heading_key("Παραπομπές") in end_matter_names("el")  # casefolded: the final sigma compares as σ
    assert {"脚注", "参考文献", "外部リンク", "関連項目"} <= end_matter_names("ja")
    assert "外部连结" not in end_matter_names("zh") and "外部链接" in end_matter_names("zh-hant")
    assert "liên kết ngoài" in end_matter_names("vi") and "литература" not in NAMES


@pytest.mark.parametrize("language", ["ru", "uk", "el", "ja", "zh", "vi"])
def test_no_end_matter_node_on_the_real_pages_of_other_wikipedias(tmp_path, language):
    # Литва's Литература and Ссылки, 电信级NAT's 外部链接, VIQR's Liên kết ngoài were SRR positives before
    articles = [a for a in read_articles(mediawiki_xml, write_dump(language, tmp_path)) if isinstance(a, Article)]
    names = end_matter_names(language)
    rows, _ = _rows(articles, TaskOptions(positives="all"))
    assert rows["srr"] and not [r["path"] for r in rows["srr"] if any(heading_key(t) in names for t in r["path"])]
