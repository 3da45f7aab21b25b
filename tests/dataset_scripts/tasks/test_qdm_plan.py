"""QDM's plan on disk: links cut into buckets by anchor text, each bucket built on its own, looked up by key."""

from __future__ import annotations

import numpy as np

from wikiformer_kit.dataset_scripts.tasks.qdm_plan import (
    QdmPlan,
    build_plan_bucket,
    plan_bucket_count,
    write_link_parts,
)
from wikiformer_kit.dataset_scripts.tasks.see_also_join import bucket_of

ROWS = {"Mercury (planet)": 0, "Mercury (element)": 1, "Freddie Mercury": 2, "Mercury (disambiguation)": 3, "Venus": 4}
ELIGIBLE = np.array([True, True, True, False, True])  # row 3: a disambiguation page, no destination


def resolve(titles):
    return [ROWS.get(t) for t in titles]


def test_the_plan_holds_ambiguous_anchor_texts_with_their_destinations_and_cutoff(tmp_path):
    buckets = 3
    units = [
        # unit 0: "mercury" to the planet (rank 50) and the element (rank 7), "venus" to Venus only
        (["mercury", "mercury", "venus"], ["Mercury (planet)", "Mercury (element)", "Venus"], [50, 7, 3]),
        # unit 1: "mercury" to the singer (rank 20), to the disambiguation page (not eligible), to a missing page;
        # "queen" to a missing page only
        (["mercury", "mercury", "mercury", "queen"], ["Freddie Mercury", "Mercury (disambiguation)", "Nowhere", "Q"], [20, 1, 2, 9]),
    ]  # fmt: skip
    parts = []
    for number, (keys, targets, ranks) in enumerate(units):
        parts.append(tmp_path / f"{number}.arrow")
        write_link_parts(keys, targets, ranks, buckets, parts[-1])
    files = [tmp_path / f"bucket-{b}.sqlite" for b in range(buckets)]
    planned = sum(build_plan_bucket(b, buckets, parts, resolve, ELIGIBLE, 2, files[b]) for b in range(buckets))
    assert planned == 1  # only "mercury" links to 2+ usable pages
    plan = QdmPlan(files).lookup(["mercury", "venus", "queen", "mercury", "unknown"])
    # destinations: planet, element, singer (the disambiguation page and the missing page left out); the cut-off
    # is the 2nd lowest rank of its usable occurrences (7, 20, 50)
    assert plan == {"mercury": ([0, 1, 2], 20)}
    assert [bucket_of(k, buckets) for k in ("mercury", "venus", "queen")] == [0, 1, 0]  # two buckets used
    assert plan_bucket_count(0) == 1 and plan_bucket_count(1_200_000) == 3


def test_given_key_crcs_cut_the_links_as_the_keys_do(tmp_path):
    from wikiformer_kit.dataset_scripts.tasks.see_also_join import crc32_of, read_part

    keys, targets, ranks = ["mercury", "venus", "queen", "ひかり"], ["A", "B", "C", "D"], [4, 3, 2, 1]
    write_link_parts(keys, targets, ranks, 3, tmp_path / "keys.arrow")
    write_link_parts(keys, targets, ranks, 3, tmp_path / "crcs.arrow", crc32_of(keys))
    for bucket in range(3):
        by_keys = read_part(tmp_path / "keys.arrow", bucket, 3)
        assert by_keys.equals(read_part(tmp_path / "crcs.arrow", bucket, 3))
        assert all(bucket_of(k, 3) == bucket for k in by_keys.column("key").to_pylist())


def plan_by_definition(keys, targets, ranks, resolve, eligible, max_pairs):
    """The plan written out link by link: each key's usable destinations and the ranks of its usable occurrences."""
    destinations, occurrences = {}, {}
    for key, row, rank in zip(keys, resolve(targets), ranks, strict=True):
        if row is not None and eligible[row]:
            destinations.setdefault(key, set()).add(row)
            occurrences.setdefault(key, []).append(rank)
    return [
        (key, ",".join(map(str, sorted(rows))), sorted(occurrences[key])[:max_pairs][-1])
        for key, rows in sorted(destinations.items())
        if len(rows) >= 2
    ]


def test_plan_entries_equal_the_plan_by_definition_on_random_links(monkeypatch):
    import pyarrow as pa

    from wikiformer_kit.dataset_scripts.tasks import qdm_plan
    from wikiformer_kit.dataset_scripts.tasks.qdm_plan import LINK_SCHEMA, plan_entries

    monkeypatch.setattr(qdm_plan, "RESOLVE_AT_ONCE", 7)  # targets resolved in several slices
    rng = np.random.default_rng(0)
    pages = 40
    eligible = rng.random(pages) < 0.8
    titles = {f"Page {i}": i for i in range(pages)}

    def resolve(names):
        return [titles.get(name) for name in names]

    for links in (0, 1, 5, 300):
        keys = [f"k{rng.integers(12)}" for _ in range(links)]
        targets = [f"Page {rng.integers(pages + 8)}" for _ in range(links)]  # some pages missing
        ranks = rng.integers(0, 1000, size=links).tolist()
        table = pa.table({"key": keys, "target": targets, "rank": ranks}, schema=LINK_SCHEMA)
        for max_pairs in (1, 3, 10):
            expected = plan_by_definition(keys, targets, ranks, resolve, eligible, max_pairs)
            assert plan_entries(table, resolve, eligible, max_pairs) == expected
    assert expected  # the last draw plans some keys
