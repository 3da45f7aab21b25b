"""The See also title join on disk against the in-memory resolution: the same rows for real samples (titles,
case, underscores, fragments, redirect chains), buckets that hold only their own titles, memory that does not grow
with the corpus, and a build killed mid-join that resumes to the same bytes."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import ENWIKI_SAMPLE, PROJECT_ROOT, SAMPLES
from wikiformer_kit.dataset_scripts.build import main
from wikiformer_kit.dataset_scripts.corpus.titles import normalize_title
from wikiformer_kit.dataset_scripts.tasks import ltm_step, see_also_join
from wikiformer_kit.dataset_scripts.tasks.article_tasks_step import ArticleTasksStep
from wikiformer_kit.dataset_scripts.tasks.build_layout import BuildLayout
from wikiformer_kit.dataset_scripts.tasks.corpus_units import corpus_files, plan_units
from wikiformer_kit.dataset_scripts.tasks.ltm_step import LtmStep
from wikiformer_kit.dataset_scripts.tasks.options import TaskOptions
from wikiformer_kit.dataset_scripts.tasks.see_also_graph import ArticleIndex
from wikiformer_kit.dataset_scripts.tasks.see_also_join import (
    JoinPartError,
    TitleJoin,
    bucket_count,
    bucket_of,
    build_bucket,
    read_part,
    write_redirect_parts,
    write_title_parts,
)
from wikiformer_kit.dataset_scripts.tasks.see_also_join_step import SeeAlsoJoinStep

LTG_SAMPLE = SAMPLES / "wikipedia" / "ltgwiki-sample.xml.bz2"
UNIT = 100
TASKS = ("srr", "ltm")


@pytest.fixture(scope="module", params=[ENWIKI_SAMPLE, LTG_SAMPLE], ids=["enwiki", "ltgwiki"])
def corpus(request, tmp_path_factory) -> Path:
    """A corpus built from a vendored real dump sample (with its redirects)."""
    out = tmp_path_factory.mktemp("corpus") / "out"
    assert main(["--input", str(request.param), "--output-dir", str(out), "--tasks", "ati"]) == 0
    return out / "corpus"


def stage_one(corpus: Path, out: Path, buckets: int) -> tuple[list, list[Path]]:
    """Stage 1 and the join stage, in this process, with ``buckets`` buckets; returns the units and redirects."""
    data, redirects = corpus_files(corpus)
    units = plan_units(data, UNIT)
    list(ArticleTasksStep(out, units, TASKS, TaskOptions(), redirects, buckets).run())
    list(SeeAlsoJoinStep(out, units, len(redirects), buckets).run())
    return units, redirects


def probes(layout: BuildLayout, units, redirects: list[Path]) -> list[str]:
    """Every See also target, every title as written and changed the ways a link may write it (first letter in
    lower case, underscores, a fragment, spaces around it), every redirect source, and misses."""
    targets = pq.read_table([layout.edges_file(u.number) for u in units]).column("target").to_pylist()
    titles = pa.concat_tables(pa.ipc.open_file(layout.index_file(u.number)).read_all() for u in units)
    variants = []
    for title in titles.column("display_title").to_pylist():
        variants += [title, title[:1].lower() + title[1:], title.replace(" ", "_"), f" {title}#Section "]
    sources = pq.read_table(redirects).column("source").to_pylist() if redirects else []
    return targets + variants + sources + ["No such page at all", "", "#Only a fragment"]


def test_join_resolves_like_the_in_memory_index(corpus, tmp_path):
    out = tmp_path / "join"
    units, redirects = stage_one(corpus, out, buckets=4)
    layout = BuildLayout(out)
    index = ArticleIndex([layout.index_file(u.number) for u in units], redirects)
    join = TitleJoin([layout.bucket_file(b, 4) for b in range(4)])
    titles = probes(layout, units, redirects)
    expected = index.resolve(titles)
    assert join.resolve(titles) == expected
    # the probes exercise every path: exact titles, normalised variants, redirects, misses
    exact = set(index.table.column("title").to_pylist())
    assert (
        sum(r is not None and normalize_title(t) not in exact for t, r in zip(titles, expected, strict=True)) > 0
    )  # redirects
    assert (
        sum(r is not None and t != normalize_title(t) for t, r in zip(titles, expected, strict=True)) > 100
    )  # case, _, #
    assert None in expected


def test_ltm_rows_equal_those_of_the_in_memory_resolution(corpus, tmp_path):
    class InMemoryLtm(LtmStep):  # the LTM stage as it was: every title and redirect in memory
        def title_join(self):
            return ArticleIndex([self.layout.index_file(u.number) for u in self.units], redirects)

    joined, in_memory = tmp_path / "joined", tmp_path / "in-memory"
    units, redirects = stage_one(corpus, joined, buckets=3)
    stage_one(corpus, in_memory, buckets=1)
    list(LtmStep(joined, units, TaskOptions(), 3).run())
    list(InMemoryLtm(in_memory, units, TaskOptions(), 1).run())
    shards = sorted(p.relative_to(joined) for p in joined.glob("wikiformer-ltm/data/*.parquet"))
    assert shards == sorted(p.relative_to(in_memory) for p in in_memory.glob("wikiformer-ltm/data/*.parquet"))
    assert sum(pq.ParquetFile(joined / s).metadata.num_rows for s in shards) > 0
    for shard in shards:
        assert (joined / shard).read_bytes() == (in_memory / shard).read_bytes()


def test_ltm_batches_of_targets_give_the_same_rows(corpus, tmp_path, monkeypatch):
    """Units resolved in batches bounded by their See also targets (each unit alone here) write the same bytes as
    all units in one batch."""
    calls = []

    class CountingLtm(LtmStep):
        def title_join(self):
            join = super().title_join()
            resolve = join.resolve
            join.resolve = lambda titles: calls.append(len(titles)) or resolve(titles)
            return join

    one, small = tmp_path / "one", tmp_path / "small"
    units, _ = stage_one(corpus, one, buckets=1)
    stage_one(corpus, small, buckets=1)
    list(CountingLtm(one, units, TaskOptions(), 1).run())
    assert len(calls) == 1
    monkeypatch.setattr(ltm_step, "LTM_TARGETS_PER_BATCH", 1)
    calls.clear()
    list(CountingLtm(small, units, TaskOptions(), 1).run())
    with_edges = [u for u in units if pq.ParquetFile(BuildLayout(small).edges_file(u.number)).metadata.num_rows]
    assert len(calls) >= len(with_edges) > 1  # every unit with targets in a batch of its own
    shards = sorted(p.relative_to(one) for p in one.glob("wikiformer-ltm/data/*.parquet"))
    assert shards and shards == sorted(p.relative_to(small) for p in small.glob("wikiformer-ltm/data/*.parquet"))
    for shard in shards:
        assert (one / shard).read_bytes() == (small / shard).read_bytes()


def test_a_stage_one_without_the_join_parts_is_named(corpus, tmp_path):
    units, redirects = stage_one(corpus, tmp_path, buckets=2)
    BuildLayout(tmp_path).title_parts(units[0].number, 2).unlink()
    for bucket in range(2):
        BuildLayout(tmp_path).bucket_file(bucket, 2).unlink()
    with pytest.raises(FileNotFoundError, match="1 part files of the See also join are missing, e.g. .*00000.arrow"):
        list(SeeAlsoJoinStep(tmp_path, units, len(redirects), 2).run())


def synthetic_join(tmp_path: Path, titles: list[str], redirects: list[tuple[str, str]], buckets: int) -> TitleJoin:
    """A join over ``titles`` (two title part files, as two units) and ``redirects`` with ``buckets`` buckets."""
    half = len(titles) // 2
    parts = [tmp_path / "t0.arrow", tmp_path / "t1.arrow"]
    write_title_parts(pa.array(titles[:half], pa.string()), 0, buckets, parts[0])
    write_title_parts(pa.array(titles[half:], pa.string()), half, buckets, parts[1])
    redirect_file = tmp_path / "redirects.parquet"
    pq.write_table(pa.table({"source": [s for s, _ in redirects], "target": [t for _, t in redirects]}), redirect_file)
    write_redirect_parts(redirect_file, buckets, tmp_path / "r0.arrow")
    files = [tmp_path / f"b{b}.sqlite" for b in range(buckets)]
    for bucket, file in enumerate(files):
        build_bucket(bucket, buckets, parts, [tmp_path / "r0.arrow"], file)
    return TitleJoin(files)


def test_repeated_titles_redirect_chains_loops_and_the_hop_limit(tmp_path):
    titles = ["Mars", "Phobos", "Mars", "End"]  # a repeated title: its first row counts
    chain = [(f"Hop {i}", f"Hop {i + 1}") for i in range(6)] + [("Hop 6", "End")]  # Hop i is 7 - i hops from End
    redirects = [("Red planet", "Fourth planet"), ("Fourth planet", "mars"), ("Red planet", "Phobos")]
    redirects += [("Loop A", "Loop B"), ("Loop B", "Loop A"), *chain]
    join = synthetic_join(tmp_path, titles, redirects, buckets=5)
    names = ["mars", "Red_planet", "Loop A", "Hop 3", "Hop 2", "Hop 1", "Phobos#x", "Nowhere"]
    assert join.resolve(names) == [0, 0, None, 3, 3, None, 1, None]  # 5 hops at most: Hop 2 but not Hop 1
    (tmp_path / "index").mkdir()
    assert join.resolve(names) == in_memory(tmp_path / "index", titles, tmp_path / "redirects.parquet", names)


def test_kept_answers_are_those_of_a_lookup_and_the_oldest_are_dropped(tmp_path):
    join = synthetic_join(tmp_path, ["Mars", "Phobos", "Deimos"], [("Red planet", "Mars")], buckets=2)
    fresh = TitleJoin(join.bucket_files, kept=0)
    bounded = TitleJoin(join.bucket_files, kept=2)
    asked = []
    resolve = bounded._resolve
    bounded._resolve = lambda titles: asked.append(list(titles)) or resolve(titles)
    assert (
        bounded.resolve(["Red planet", "Phobos", "Red planet"])
        == [0, 1, 0]
        == fresh.resolve(["Red planet", "Phobos", "Red planet"])
    )
    assert asked == [["Red planet", "Phobos"]]  # each distinct title looked up once
    assert bounded.resolve(["Phobos", "Nowhere"]) == [1, None]
    assert asked[1:] == [["Nowhere"]]  # Phobos kept; Red planet, the oldest, dropped to keep 2
    assert (
        bounded.resolve(["Red planet", "Nowhere", "Deimos"])
        == [0, None, 2]
        == fresh.resolve(["Red planet", "Nowhere", "Deimos"])
    )
    assert asked[2:] == [["Red planet", "Deimos"]]


def in_memory(folder: Path, titles: list[str], redirect_file: Path, names: list[str]) -> list[int | None]:
    from wikiformer_kit.dataset_scripts.tasks.see_also_graph import INDEX_SCHEMA, write_index

    table = pa.table(
        {
            "title": [normalize_title(t) for t in titles],
            "article_id": [str(i) for i in range(len(titles))],
            "display_title": titles,
            "text": titles,
            "eligible": [True] * len(titles),
        },
        schema=INDEX_SCHEMA,
    )
    write_index(table, folder / "0.arrow")
    return ArticleIndex([folder / "0.arrow"], [redirect_file]).resolve(names)


def test_buckets_hold_their_own_titles_and_an_even_share(tmp_path):
    titles = [f"Article number {i}" for i in range(20_000)]
    redirects = [(f"Other name {i}", f"Article number {i}") for i in range(0, 20_000, 2)]
    join = synthetic_join(tmp_path, titles, redirects, buckets=8)
    assert len(join.bucket_files) == 8 and all(f.exists() for f in join.bucket_files)
    sizes = []
    for bucket in range(8):
        part = read_part(tmp_path / "t0.arrow", bucket, 8)
        assert all(bucket_of(t, 8) == bucket for t in part.column("title").to_pylist())
        with sqlite3.connect(join.bucket_files[bucket]) as db:
            rows = db.execute("SELECT title FROM titles UNION ALL SELECT source FROM redirects").fetchall()
        assert all(bucket_of(t, 8) == bucket for (t,) in rows)
        sizes.append(len(rows))
    assert sum(sizes) == 30_000 and max(sizes) < 1.2 * 30_000 / 8  # one bucket is ~1/8 of what a build holds
    assert join.resolve(["Article number 7", "Other name 8", "Other name 9"]) == [7, 8, None]
    with pytest.raises(JoinPartError, match="t0.arrow holds 8 buckets, the join expects 4"):
        read_part(tmp_path / "t0.arrow", 0, 4)


def test_bucket_count_follows_the_corpus_size():
    assert bucket_count(0) == 1 and bucket_count(see_also_join.TITLES_PER_BUCKET) == 1
    assert bucket_count(see_also_join.TITLES_PER_BUCKET + 1) == 2 and bucket_count(7_000_000) == 28
    assert bucket_count(10**12) == see_also_join.MAX_BUCKETS


def resolve_peak_bytes(tmp_path: Path, count: int) -> int:
    """Peak Python memory of resolving the same 2,000 targets against a join over ``count`` titles."""
    titles = [f"Title {i}" for i in range(count)]
    join = synthetic_join(tmp_path, titles, [(f"Alias {i}", f"Title {i}") for i in range(0, count, 3)], buckets=4)
    targets = [f"Title {i * 5}" for i in range(1000)] + [f"Alias {i * 3}" for i in range(1000)]
    tracemalloc.start()
    rows = join.resolve(targets)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert rows == [i * 5 for i in range(1000)] + [i * 3 for i in range(1000)]
    return peak


def test_resolving_holds_the_targets_not_the_titles(tmp_path):
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    small, large = resolve_peak_bytes(tmp_path / "small", 5_000), resolve_peak_bytes(tmp_path / "large", 100_000)
    assert large < 1.5 * small  # 20x the titles, the same memory: it follows the batch of targets


KILL_IN_BUCKET = """
import os, signal, sys
from wikiformer_kit.dataset_scripts.build import main
from wikiformer_kit.dataset_scripts.tasks import see_also_join, see_also_join_step

see_also_join.TITLES_PER_BUCKET = 250
real = see_also_join_step.build_bucket

def build_then_die(bucket, buckets, titles, redirects, db):
    real(bucket, buckets, titles, redirects, db)
    if bucket == 2:  # killed with bucket 2 written under its temporary name, before the rename
        os.kill(os.getpid(), signal.SIGKILL)

see_also_join_step.build_bucket = build_then_die
sys.exit(main(sys.argv[1:]))
"""


def digests(folder: Path) -> dict[str, str]:
    files = [*folder.glob("wikiformer-*/data/*.parquet"), *folder.glob(".build/see-also-join-*/*/*")]
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(files)}


@pytest.mark.slow
def test_a_build_killed_mid_join_resumes_to_the_same_bytes(tmp_path, monkeypatch):
    one = tmp_path / "one"  # 895 articles: one bucket by default
    dump = ["--input", str(LTG_SAMPLE), "--tasks", "ltm", "--articles-per-unit", str(UNIT)]
    assert main([*dump, "--output-dir", str(one)]) == 0
    args = ["--input", str(one / "corpus"), *dump[2:]]
    monkeypatch.setattr(see_also_join, "TITLES_PER_BUCKET", 250)  # 4 buckets
    full, killed = tmp_path / "full", tmp_path / "killed"
    assert main([*args, "--output-dir", str(full)]) == 0
    buckets = full / ".build" / "see-also-join-4" / "buckets"
    assert len(list(buckets.glob("*.sqlite"))) == 4

    command = [sys.executable, "-c", textwrap.dedent(KILL_IN_BUCKET), *args, "--output-dir", str(killed)]
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    log = tmp_path / "killed.log"
    with open(log, "w") as stderr:  # not a pipe: a helper process of the executor may outlive the build
        process = subprocess.Popen(command, cwd=PROJECT_ROOT, stderr=stderr, env=env, start_new_session=True)
        returncode = process.wait(timeout=300)
    try:
        os.killpg(process.pid, signal.SIGKILL)  # what the build left running
    except ProcessLookupError:
        pass
    assert returncode == -signal.SIGKILL, log.read_text()[-2000:]
    join = killed / ".build" / "see-also-join-4" / "buckets"
    assert sorted(p.name for p in join.glob("*.sqlite")) == ["00000.sqlite", "00001.sqlite"]
    assert list(join.glob(".00002.sqlite.tmp-*"))  # what the kill left half-done
    assert not list((killed / ".build").glob("ltm-units/*.json"))

    assert main([*args, "--output-dir", str(killed)]) == 0
    assert digests(killed) == digests(full)
    assert not list(killed.rglob(".*.tmp-*"))
    ltm = sorted(full.glob("wikiformer-ltm/data/*.parquet"))
    # 4 buckets or 1: the same LTM rows
    assert ltm and [p.read_bytes() for p in ltm] == [(one / p.relative_to(full)).read_bytes() for p in ltm]
