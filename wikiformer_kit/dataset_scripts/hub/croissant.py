"""``croissant.json`` (MLCommons Croissant 1.0) of a dataset folder: what the Hub's automatic one drops kept in
(the licence, the citation, how the data was made, from the card), its files and every config's fields (from the
Parquet schemas)."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pyarrow as pa

from wikiformer_kit import __version__
from wikiformer_kit.dataset_scripts.hub.viewer import card_of, configs_of

TERMS = (
    "@language @vocab citeAs column conformsTo cr rai data dataType dct equivalentProperty examples extract field "
    "fileProperty fileObject fileSet format includes isLiveDataset jsonPath key md5 parentField path recordSet "
    "references regex repeated replace samplingRate sc separator source subField transform"
).split()
SPECIAL_TERMS = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "sc": "https://schema.org/",
}
CONTEXT = {term: SPECIAL_TERMS.get(term, f"cr:{term}") for term in TERMS}
"""The JSON-LD context of the Croissant 1.0 specification (mlcommons.org/croissant/1.0), in its order: each term is
``cr:TERM`` but those in ``SPECIAL_TERMS``."""

LICENSE_URLS = {
    "cc-by-sa-4.0": "https://creativecommons.org/licenses/by-sa/4.0/",
    "cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/",
    "apache-2.0": "https://www.apache.org/licenses/LICENSE-2.0",
    "mit": "https://opensource.org/licenses/MIT",
}
DATA_TYPES = [
    (pa.types.is_string, "sc:Text"),
    (pa.types.is_large_string, "sc:Text"),
    (pa.types.is_boolean, "sc:Boolean"),
    (pa.types.is_integer, "sc:Integer"),
    (pa.types.is_floating, "sc:Float"),
]


def croissant(folder: str | Path, repo_id: str) -> dict:
    """The Croissant description of the dataset folder as published under ``repo_id``."""
    folder = Path(folder)
    card = card_of(folder)
    metadata = card.data.to_dict()
    body = card.text.strip()
    paragraphs = [
        p.strip() for p in re.split(r"\n\s*\n", body) if p.strip() and not p.lstrip().startswith(("#", "|", "```"))
    ]
    citation = re.search(r"```bibtex\n(.*?)```", body, re.S)
    distribution, record_sets = [], []
    for config in configs_of(folder, card):
        if config.schema is None:
            continue
        files = f"parquet-files-for-config-{config.name}"
        includes = list(config.patterns)
        distribution.append(
            {"@type": "cr:FileSet", "@id": files, "name": files, "description": f"The Parquet files of config {config.name}.",
             "encodingFormat": "application/x-parquet", "includes": includes[0] if len(includes) == 1 else includes}
        )  # fmt: skip
        record_sets.append(
            {
                "@type": "cr:RecordSet",
                "@id": config.name,
                "name": config.name,
                "description": f"{repo_id} - '{config.name}' subset ({', '.join(config.splits)})",
                "field": [_field(config.name, files, column) for column in config.schema],
            }
        )
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "name": repo_id.split("/")[-1],
        "description": paragraphs[0] if paragraphs else metadata.get("pretty_name", repo_id),
        "license": LICENSE_URLS.get(metadata.get("license", ""), metadata.get("license", "")),
        "url": f"https://huggingface.co/datasets/{repo_id}",
        "citeAs": citation.group(1).strip() if citation else dataset_citation(repo_id, metadata.get("pretty_name")),
        "creator": {"@type": "sc:Organization", "name": repo_id.split("/")[0]},
        "keywords": [str(tag) for tag in metadata.get("tags") or []],
        "isAccessibleForFree": True,
        "datePublished": date.today().isoformat(),
        "version": __version__,
        "rai:dataCollection": "\n\n".join(paragraphs[1:4]) if len(paragraphs) > 1 else "",
        "distribution": distribution,
        "recordSet": record_sets,
    }


def dataset_citation(repo_id: str, title: str | None) -> str:
    """A BibTeX entry for the dataset itself, where its card cites no paper."""
    key = re.sub(r"\W+", "_", repo_id)
    return (
        f"@misc{{{key},\n  title        = {{{title or repo_id.split('/')[-1]}}},\n"
        f"  howpublished = {{\\url{{https://huggingface.co/datasets/{repo_id}}}}},\n"
        "  note         = {Built with the Wikiformer kit}\n}"
    )


def write_croissant(folder: str | Path, repo_id: str) -> Path:
    """Write ``folder/croissant.json``; returns its path."""
    path = Path(folder) / "croissant.json"
    path.write_text(json.dumps(croissant(folder, repo_id), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _field(config: str, files: str, column: pa.Field) -> dict:
    value_type, repeated = (column.type.value_type, True) if pa.types.is_list(column.type) else (column.type, False)
    data_type = next((name for test, name in DATA_TYPES if test(value_type)), None)
    if data_type is None:
        raise ValueError(f"config {config!r} column {column.name!r}: {column.type} has no Croissant data type here")
    field = {
        "@type": "cr:Field",
        "@id": f"{config}/{column.name}",
        "name": f"{config}/{column.name}",
        "dataType": data_type,
        "source": {"fileSet": {"@id": files}, "extract": {"column": column.name}},
    }
    return field | ({"repeated": True} if repeated else {})
