"""End-to-end: the vendored enwiki dump sample -> the four task datasets, checked against the raw wikitext."""

from __future__ import annotations

import bz2
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import mwxml
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT
from wikiformer_kit.dataset_scripts.build import main
from wikiformer_kit.dataset_scripts.corpus.article import ARTICLE_SCHEMA, Article
from wikiformer_kit.dataset_scripts.corpus.titles import normalize_title
from wikiformer_kit.dataset_scripts.corpus.wikitext import strip_non_text
from wikiformer_kit.dataset_scripts.tasks.registry import DEFAULT_TASKS, get_task

pytestmark = pytest.mark.slow  # end to end: dump -> corpus -> datasets, several builds

UNIT = ["--articles-per-unit", "30"]  # 106 articles -> 4 units, so that two processes share the work


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """One build of all four tasks from the dump sample (corpus build included), one process."""
    out = tmp_path_factory.mktemp("build") / "out"
    assert main(["--input", str(ENWIKI_SAMPLE), "--output-dir", str(out), "--num-proc", "1", *UNIT]) == 0
    return out


@pytest.fixture(scope="module")
def wikitext() -> dict[str, str]:
    """Raw wikitext of every article of the sample, read with mwxml (independently of the corpus readers)."""
    pages = {}
    for page in mwxml.Dump.from_file(bz2.open(ENWIKI_SAMPLE)):
        if page.namespace == 0:
            pages[page.title] = next(iter(page)).text or ""
    return pages


def rows(folder: Path, task: str) -> list[dict]:
    files = sorted((folder / f"wikiformer-{task}" / "data").glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def parquet_digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.glob("wikiformer-*/data/*.parquet"))
    }


def headings(text: str) -> list[tuple[int, str, int, int]]:
    """(level, title, start, end) of the page's heading lines, title markup stripped; ``end`` is where the
    section's own text starts."""
    found = []
    for match in re.finditer(r"^(={2,6})\s*(.+?)\s*\1\s*(?:<!--.*?-->\s*)*$", text, re.M):
        title = re.sub(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]|'{2,}|<[^>]+>|\{\{[^}]*\}\}", r"\1", match.group(2)).strip()
        found.append((len(match.group(1)), title, match.start(), match.end()))
    return found


def heading_chain(text: str, path: list[str]) -> list[int] | None:
    """Positions in ``headings(text)`` of the nested heading chain ``path[1:]`` (each a sub-heading of the last)."""
    marks = headings(text)

    def search(start: int, level: int, end: int, rest: list[str]) -> list[int] | None:
        if not rest:
            return []
        for i in range(start, end):
            if marks[i][0] <= level:
                break
            if marks[i][1] == rest[0]:
                stop = next((j for j in range(i + 1, len(marks)) if marks[j][0] <= marks[i][0]), len(marks))
                tail = search(i + 1, marks[i][0], stop, rest[1:])
                if tail is not None:
                    return [i, *tail]
        return None

    return search(0, 1, len(marks), path[1:])


def test_every_task_produces_valid_groups(built):
    summary = json.loads((built / ".build" / "summary.json").read_text())
    assert summary["articles"] == 106
    for task in DEFAULT_TASKS:
        groups = rows(built, task)
        assert groups and summary[task]["rows"] == len(groups), task
        fixed = get_task(task).fixed_side
        keys = set()
        for row in groups:
            texts = [row[fixed], row["positive"], *row["negatives"]]
            assert all(t.strip() for t in texts), (task, row["article_id"])
            assert row["positive"] not in row["negatives"] and len(set(row["negatives"])) == len(row["negatives"])
            keys.add((row["article_id"], row[fixed], row["positive"]))
        assert len(keys) == len(groups), f"duplicate rows in {task}"
        card = (built / f"wikiformer-{task}" / "README.md").read_text()
        assert "license: cc-by-sa-4.0" in card and "enwiki-sample.xml.bz2" in card and "@inproceedings" in card
        assert f"| rows | {len(groups)} |" in card


def test_srr_queries_are_heading_paths_and_negatives_their_siblings(built, wikitext):
    checked = 0
    for row in rows(built, "srr"):
        text = wikitext[row["title"]]
        chain = heading_chain(text, row["path"])
        if chain is None:  # a heading with templates in it: not comparable by this simple reader
            continue
        marks = headings(text)
        level = marks[chain[-1]][0]
        parent = chain[-2] if len(chain) > 1 else -1
        stop = len(marks)
        if parent >= 0:
            stop = next((j for j in range(parent + 1, len(marks)) if marks[j][0] <= marks[parent][0]), len(marks))
        siblings = {marks[j][1] for j in range(parent + 1, stop) if marks[j][0] == level}
        corpus = Article.from_dict(_corpus_row(built, row["article_id"]))
        by_text = {s.text.strip()[:200]: s.title for s in corpus.sections}
        negative_titles = {by_text.get(n[:200]) for n in row["negatives"]}
        assert negative_titles <= siblings, (row["path"], negative_titles - siblings)
        assert row["query"] == " ".join(row["path"])
        # the positive is the text of that very section: its long words are in the section's wikitext, or in what
        # its templates render ({{ARG}} shows "Argentina")
        position = chain[-1]
        following = marks[position + 1][2] if position + 1 < len(marks) else len(text)
        section = text[marks[position][3] : following]
        section += strip_non_text(section, "en")
        words = set(re.findall(r"[A-Za-z]{7,}", row["positive"]))
        assert sum(w in section for w in words) >= 0.8 * len(words), row["path"]
        checked += 1
    assert checked >= 50


def test_rwi_ati_ltm_against_the_wikitext(built, wikitext):
    for row in rows(built, "rwi")[:40]:
        text = wikitext[row["title"]]
        titles = {h[1] for h in headings(text)}
        if heading_chain(text, row["path"]) is None:
            continue
        for negative in row["negatives"]:
            assert negative.startswith(row["title"] + " ")
        assert row["path"][-1] in titles
    for row in rows(built, "ati")[:40]:
        lead = wikitext[row["title"]].split("\n==", 1)[0]
        words = set(re.findall(r"[A-Za-z]{7,}", row["positive"]))
        assert row["query"] == row["title"] and sum(w in lead for w in words) >= 0.8 * len(words)
    ltm = rows(built, "ltm")
    redirects = _redirects(built)
    for row in ltm:
        see_also = re.search(r"^==\s*See also\s*==$(.*?)(?=^==[^=]|\Z)", wikitext[row["title"]], re.M | re.S)
        linked = {normalize_title(t) for t in re.findall(r"\[\[([^|\]]+)", see_also.group(1))}
        assert normalize_title(row["positive_title"]) in linked | {redirects.get(t) for t in linked}
        assert row["title"] not in row["negative_titles"]
        assert not set(row["negative_titles"]) & (linked | {redirects.get(t) for t in linked})


def _corpus_row(built: Path, article_id: str) -> dict:
    table = pa.concat_tables([pq.read_table(f) for f in sorted((built / "corpus" / "data").glob("*.parquet"))])
    return next(r for r in table.to_pylist() if r["id"] == article_id)


def _redirects(built: Path) -> dict[str, str]:
    table = pa.concat_tables([pq.read_table(f) for f in sorted((built / "corpus" / "redirects").glob("*.parquet"))])
    return {normalize_title(r["source"]): normalize_title(r["target"]) for r in table.to_pylist()}


def test_same_seed_gives_byte_identical_parquet_whatever_the_processes(built, tmp_path):
    again = tmp_path / "again"
    assert main(["--input", str(built / "corpus"), "--output-dir", str(again), "--num-proc", "2", *UNIT]) == 0
    assert parquet_digests(again) == parquet_digests(built) != {}
    other = tmp_path / "other-seed"
    assert main(["--input", str(built / "corpus"), "--output-dir", str(other), "--seed", "7", *UNIT]) == 0
    assert parquet_digests(other) != parquet_digests(built)


def test_an_interrupted_build_resumes_without_duplicates_or_gaps(built, tmp_path):
    out = tmp_path / "resume"
    args = ["--input", str(built / "corpus"), "--output-dir", str(out), *UNIT]
    assert main(args) == 0
    expected = parquet_digests(out)
    # the state a crash leaves: some units without marker (their shards half-written or missing), a stray
    # temporary file, and no datatrove completion for the ranks that were running
    for stage in ("units", "ltm-units"):
        (out / ".build" / stage / "00001.json").unlink()
    (out / ".build" / "ltm-units" / "00002.json").unlink()
    shard = next((out / "wikiformer-srr" / "data").glob("train-00001-*.parquet"))
    shard.write_bytes(shard.read_bytes()[:100])
    next((out / "wikiformer-ltm" / "data").glob("*.parquet")).unlink()
    (shard.parent / ".train-00001.parquet.tmp-1").write_bytes(b"partial")
    next((out / "wikiformer-rwi" / "data").glob("train-00002-*.parquet")).unlink()  # its unit marker stays
    for completions in (out / ".build" / "logs").glob("*/completions"):
        for done in completions.iterdir():
            done.unlink()
    assert main(args) == 0
    assert parquet_digests(out) == expected


def test_other_parameters_in_the_same_folder_are_refused(built, tmp_path, capsys):
    out = tmp_path / "params"
    assert main(["--input", str(built / "corpus"), "--output-dir", str(out), "--tasks", "ati"]) == 0
    assert main(["--input", str(built / "corpus"), "--output-dir", str(out), "--tasks", "ati", "--seed", "1"]) == 2
    assert "other parameters (options differ)" in capsys.readouterr().err


def _write_corpus(folder: Path, articles: list[Article]) -> Path:
    (folder / "data").mkdir(parents=True)
    table = pa.Table.from_pylist([a.to_dict() for a in articles], schema=ARTICLE_SCHEMA)
    pq.write_table(table, folder / "data" / "part-0.parquet")
    return folder


def test_a_task_without_groups_is_an_empty_dataset_that_says_why(built, tmp_path, capsys):
    from datasets import load_dataset

    articles = [Article.from_dict(_corpus_row(built, i)) for i in ("12", "25")]
    for article in articles:
        article.see_also = []
    corpus = _write_corpus(tmp_path / "corpus", articles)
    out = tmp_path / "out"
    assert main(["--input", str(corpus), "--output-dir", str(out), "--tasks", "srr,ltm"]) == 0
    reason = "none of the 2 articles has a See also link"
    assert f"ltm: 0 rows: {reason} -> {out / 'wikiformer-ltm'} (empty)" in capsys.readouterr().out
    assert (out / "wikiformer-srr" / "README.md").exists()
    assert f"**This dataset is empty**: {reason}." in (out / "wikiformer-ltm" / "README.md").read_text()
    empty = load_dataset(str(out / "wikiformer-ltm"), split="train", streaming=True)
    assert empty.features == get_task("ltm").hf_features and list(empty) == []
    # each card's loading snippet runs as shown, the empty dataset's too
    for task, rows_expected in (("srr", True), ("ltm", False)):
        card = (out / f"wikiformer-{task}" / "README.md").read_text()
        snippet = card.split("```python\n", 1)[1].split("```", 1)[0]
        assert ("streaming=True" in snippet) != rows_expected
        scope: dict = {}
        exec(snippet.replace(f"your-namespace/wikiformer-{task}", str(out / f"wikiformer-{task}")), scope)
        assert (len(scope["groups"]) > 0) if rows_expected else (list(scope["groups"]) == [])
    assert main(["--input", str(corpus), "--output-dir", str(tmp_path / "o2"), "--tasks", "ltm"]) == 1


def test_the_built_folder_loads_with_load_dataset_in_a_fresh_process(built, tmp_path):
    code = (
        "import json, sys; from datasets import load_dataset; "
        "ds = load_dataset(sys.argv[1], split='train'); print(json.dumps(ds.to_list()))"
    )
    env = {"HF_HOME": str(tmp_path / "hf_home"), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-c", code, str(built / "wikiformer-srr")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout.splitlines()[-1]) == rows(built, "srr")


def test_options_reach_the_rows_and_the_card(built, tmp_path):
    out = tmp_path / "original"
    args = ["--input", str(built / "corpus"), "--output-dir", str(out), "--tasks", "srr,rwi"]
    assert main([*args, "--srr-variant", "original", "--positives", "all", "--max-negatives", "4"]) == 0
    srr, rwi = rows(out, "srr"), rows(out, "rwi")
    assert len({r["article_id"] for r in srr}) == len(srr)  # the original code: one row per article
    assert all(3 <= len(r["negatives"]) <= 4 for r in srr)
    assert len(rwi) > len(rows(built, "rwi"))  # one row per section with text instead of one per article
    card = (out / "wikiformer-srr" / "README.md").read_text()
    assert "- `srr_variant`: original" in card and "- `positives`: all" in card


def test_bad_task_name_is_a_clear_error(tmp_path, capsys):
    assert main(["--input", str(PROJECT_ROOT), "--output-dir", str(tmp_path), "--tasks", "srr,xyz"]) == 2
    assert "unknown task(s) ['xyz']" in capsys.readouterr().err


def test_slurm_executors_are_chained(built, tmp_path):
    from wikiformer_kit.dataset_scripts.build import build_options, parse_options
    from wikiformer_kit.dataset_scripts.tasks.build import PreparedBuild, make_executors
    from wikiformer_kit.dataset_scripts.tasks.build_layout import BuildLayout
    from wikiformer_kit.dataset_scripts.tasks.corpus_units import corpus_files, plan_units

    argv = [
        "--input",
        "x",
        "--output-dir",
        str(tmp_path),
        "--executor",
        "slurm",
        "--num-proc",
        "3",
        "--tasks",
        "srr,ltm",
    ]
    build = build_options(parse_options([*argv, "--slurm-partition", "cpu"]), argv)
    data, redirects = corpus_files(built / "corpus")
    layout = BuildLayout(tmp_path)
    stages = PreparedBuild(layout, plan_units(data, 30), redirects, build, {}).stages(build.executor.num_proc)
    cards = make_executors(build.executor, layout, stages)
    ltm = cards.depends
    assert type(cards).__name__ == "SlurmPipelineExecutor" and cards.world_size == 1
    join = ltm.depends  # one bucket for a small corpus: one task
    assert (
        ltm.world_size == 3 and join.world_size == 1 and join.depends.world_size == 3 and join.depends.depends is None
    )
    assert type(ltm.pipeline[0]).__name__ == "LtmStep" and type(join.pipeline[0]).__name__ == "SeeAlsoJoinStep"
    assert type(join.depends.pipeline[0]).__name__ == "ArticleTasksStep"


def every_file(folder: Path) -> dict[str, bytes]:
    """Every file a build hands over (datasets: shards and cards) and its summary, by path, with its bytes."""
    files = [p for p in folder.glob("wikiformer-*/**/*") if p.is_file()] + [folder / ".build" / "summary.json"]
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(files)}


def test_every_output_file_is_byte_identical_whatever_the_processes(built, tmp_path):
    from wikiformer_kit.dataset_scripts.executors import ExecutorOptions
    from wikiformer_kit.dataset_scripts.tasks.build import BuildOptions, build_datasets

    outputs = {}
    for processes in (1, 2, 3):
        # units of 40: 40, 40, 26 articles, shared unevenly
        options = BuildOptions(
            inputs=(built / "corpus",),
            output_dir=tmp_path / f"p{processes}",
            executor=ExecutorOptions(num_proc=processes),
            articles_per_unit=40,
            command="python -m dataset_scripts.build",
        )
        build_datasets(options)
        outputs[processes] = every_file(tmp_path / f"p{processes}")
    assert len(outputs[1]) > 8 and any(name.endswith("README.md") for name in outputs[1])
    assert outputs[2] == outputs[1]
    assert outputs[3] == outputs[1]


def test_an_output_folder_that_is_a_file_is_named_not_called_an_interruption(tmp_path, capsys):
    taken = tmp_path / "out"
    taken.write_text("not a folder")
    assert main(["--input", str(ENWIKI_SAMPLE), "--output-dir", str(taken)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert str(taken) in line and "interrupted" not in line
