"""Categories of Structured Contents records: none in the records Wikimedia publishes, an Enterprise ``categories``
list read when a record has one (as NDJSON and as the Hub's Parquet)."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from tests.dataset_scripts.corpus.formats.markup import split_records
from tests.dataset_scripts.corpus.formats.test_structured_contents import OPTIONS, SAMPLE
from wikiformer_kit.dataset_scripts.corpus.formats import structured_contents

LISTED = [
    {"name": "Category:Cities_in_Quebec", "url": "https://en.wikipedia.org/wiki/Category:Cities_in_Quebec"},
    {"name": "Category:Montreal"},
    {"name": "Category:Montreal"},
    {"url": "no name"},
]


def test_the_published_record_has_no_categories():
    record = json.loads(SAMPLE.read_text(encoding="utf-8"))
    assert "categories" not in record
    (article,), skipped, _ = split_records(structured_contents.read(SAMPLE, OPTIONS))
    assert skipped == [] and article.categories == []


def test_a_categories_list_is_read_from_ndjson_and_parquet(tmp_path):
    record = json.loads(SAMPLE.read_text(encoding="utf-8"))
    record["categories"] = LISTED
    ndjson = tmp_path / "listed.ndjson"
    ndjson.write_text(json.dumps(record) + "\n", encoding="utf-8")
    parquet = tmp_path / "listed.parquet"
    pq.write_table(pa.Table.from_pylist([record]), parquet)
    for path in (ndjson, parquet):
        (article,), skipped, _ = split_records(structured_contents.read(path, OPTIONS))
        assert skipped == [] and article.categories == ["Cities in Quebec", "Montreal"], path.name
