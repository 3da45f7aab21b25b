"""Render ``model_card.md`` into a checkpoint's ``README.md`` with huggingface_hub's ``ModelCard``.

The card states only what was measured for the checkpoint, computed from the files the evaluation wrote: every
system's means and the significance verdicts come from ``python -m eval compare``'s ``comparison.json`` (the same
verdicts as its ``table.md`` and chart). model-index lists the checkpoint's own results on test collections, and its
fusion with the first stage where the fusion changed the first stage's ranking, as an entry of its own; figures on
the queries the checkpoint or the fusion was chosen on are shown as selection figures, never as results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from huggingface_hub import EvalResult, ModelCard, ModelCardData

from wikiformer_kit.cli.commands import as_run
from wikiformer_kit.dataset_scripts.tasks.origins import HARP, PROP
from wikiformer_kit.eval.hub_results import HUB_METRICS, HubResult, nanobeir_hub_results, write_eval_results
from wikiformer_kit.eval.metrics import display_name
from wikiformer_kit.eval.nanobeir_report import NanoBEIRRecord
from wikiformer_kit.eval.report.comparison import Comparison
from wikiformer_kit.eval.report.tables import markdown_table

TEMPLATE = Path(__file__).resolve().parent / "model_card.md"
PAPER_URL = "https://arxiv.org/abs/2312.10661"
PAPER_CODE_URL = "https://github.com/oneal2000/Wikiformer"
CHART = "comparison.png"
"""The comparison chart's name in the model folder (embedded in the card)."""
NAMESPACE_PLACEHOLDER = "your-namespace"
"""The Hub namespace every card names until one is given (``release.py --namespace`` or ``--push-to-hub``)."""
COLLECTION_SOURCES = {
    "dl20-mini": (
        "a sample of TREC Deep Learning 2020 passage ranking, on MS MARCO passages",
        "the MS MARCO passages are for non-commercial research use (Microsoft's terms)",
    ),
    "cranfield-mini": ("a sample of the Cranfield collection", ""),
    "npl-mini": ("a sample of the NPL (Vaswani) collection", ""),
}
"""What the kit's vendored evaluation samples are samples of, and the terms of their text (for the card)."""
TRANSFORMERS_RANGE = "4.46 to 5.x"
"""The transformers versions the remote code is tested with."""

DEFAULT_LIMITATIONS = (
    "A cross-encoder re-ranks a first stage's candidates; it does not retrieve from a corpus by itself. "
    "Texts longer than the maximum length are truncated. Pre-training on Wikipedia structure teaches topical "
    "relevance in encyclopedic English; other domains and languages need fine-tuning."
)


def first_stage_label(name: str) -> str:
    """A first stage's name as the card shows it (``bm25`` -> ``BM25``)."""
    return "BM25" if name.lower() == "bm25" else name


def figures_role(chosen_on: str) -> str:
    """Whether a collection's figures are a test result or selection figures (what was chosen on its queries)."""
    if not chosen_on:
        return "**test**: nothing was chosen on these queries"
    verb = "were" if " and " in chosen_on else "was"
    return f"**selection figures**: {chosen_on} {verb} chosen on these queries, so they are not a test result"


@dataclass
class Evaluation:
    """Measured results of one checkpoint on one collection.

    Args:
        dataset_name: the collection's name.
        dataset_type: a stable id for the collection (model-index ``dataset.type``): its own name unless it is a
            whole public collection.
        systems: ``{system name: {measure: mean}}``, the checkpoint's own row under ``model_system``.
        model_system: which system is this checkpoint.
        relevance_level: smallest relevant grade for binary measures, if set.
        note: what else the reader needs (what the other systems are).
        fused_system: the system that is this checkpoint fused with the first stage, if measured.
        fusion: how it was fused, as ``eval rerank`` recorded it (``{"method", "alpha", "first_stage"}``).
        fusion_changes_ranking: whether the fused ranking differs from the first stage's on some query; where it
            does not (alpha 0), the fusion's figures are the first stage's and no fusion row or result is listed.
        chosen_on: what was chosen on these queries (``"the checkpoint and the fusion"``): its figures are selection
            figures, shown as such and kept out of model-index; empty for a test collection.
        num_queries: the number of queries averaged over.
        first_stage: the run whose candidates were re-ranked (the reference of the significance tests).
        depth: candidates re-ranked per query; max_length: the pair length in tokens.
        comparison: every system's means and significance verdicts as ``python -m eval compare`` wrote them.
        labels: names the card shows for other systems (``{"minilm-fresh-head": "MiniLM + untrained head"}``).
        hub_dataset: ``(dataset id, task id)`` of the collection on the Hub, where it is one: its figures then also
            go into the Hub's evaluation results files (:mod:`wikiformer_kit.eval.hub_results`).
    """

    dataset_name: str
    dataset_type: str
    systems: dict[str, dict[str, float]]
    model_system: str
    relevance_level: int | None = None
    note: str = ""
    fused_system: str | None = None
    fusion: dict | None = None
    fusion_changes_ranking: bool = True
    chosen_on: str = ""
    num_queries: int | None = None
    first_stage: str | None = None
    depth: int | None = None
    max_length: int | None = None
    comparison: Comparison | None = None
    labels: dict[str, str] = field(default_factory=dict)
    hub_dataset: tuple[str, str] | None = None

    @classmethod
    def from_comparison(cls, comparison: Comparison, model_system: str, **kwargs) -> Evaluation:
        """The figures of a ``comparison.json`` (``Comparison.from_dict``): every system's means, the number of
        queries, the relevance level and the significance verdicts against its reference (the first stage)."""
        if model_system not in comparison.means:
            raise ValueError(
                f"the comparison on {comparison.collection} has no system {model_system!r} "
                f"(systems: {', '.join(comparison.means)})"
            )
        kwargs.setdefault("first_stage", comparison.reference)
        return cls(
            comparison.collection,
            kwargs.pop("dataset_type", comparison.collection),
            comparison.means,
            model_system,
            comparison.relevance_level,
            num_queries=comparison.num_queries,
            comparison=comparison,
            **kwargs,
        )

    @classmethod
    def from_metrics_json(cls, path: str | Path, model_system: str, dataset_name: str, **kwargs) -> Evaluation:
        """Read the ``metrics.json`` of ``python -m eval rerank`` (``{system: {"means": {...}, ...}}``): means only,
        without significance tests."""
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
        if model_system not in payload:
            raise ValueError(f"{path} has no results for {model_system!r} (systems: {', '.join(payload)})")
        systems = {name: result["means"] for name, result in payload.items()}
        level = payload[model_system].get("relevance_level")
        kwargs.setdefault("num_queries", payload[model_system].get("num_queries"))
        return cls(dataset_name, kwargs.pop("dataset_type", dataset_name), systems, model_system, level, **kwargs)

    @property
    def lists_fusion(self) -> bool:
        """Whether the fused system is shown and reported: measured, and its ranking differs from the first stage's."""
        return bool(self.fused_system and self.fused_system in self.systems and self.fusion_changes_ranking)

    def fused_label(self) -> str:
        """The fused system named as a system of two, e.g. ``wikiformer + BM25 (fusion)``."""
        first_stage = (self.fusion or {}).get("first_stage") or self.first_stage or "first stage"
        return f"{self.model_system} + {first_stage_label(first_stage)} (fusion)"

    def shown_names(self) -> dict[str, str]:
        """The systems the card shows, in the comparison's order, with the names it shows them under."""
        names = {}
        for system in self.systems:
            if system == self.model_system:
                names[system] = system if "this model" in system else f"{system} (this model)"
            elif system == self.fused_system:
                if self.lists_fusion:
                    names[system] = self.fused_label()
            elif system == self.first_stage:
                names[system] = first_stage_label(system)
            else:
                names[system] = self.labels.get(system, system)
        return names

    def shown(self) -> Comparison:
        """The card's view of the comparison: its systems under their shown names, means and verdicts unchanged."""
        names = self.shown_names()
        if self.comparison is not None:
            return self.comparison.view(names)
        measures = list(next(iter(self.systems.values())))
        means = {names[system]: self.systems[system] for system in names}
        return Comparison(self.dataset_name, measures, means, num_queries=self.num_queries or 0,
                          relevance_level=self.relevance_level)  # fmt: skip

    def describe(self) -> str:
        """What was evaluated: the collection (what it is a sample of, where known), its queries, the candidates
        and the pair length, e.g. ``dl20-mini (a sample of ...): 10 queries, BM25 top 20, pairs of up to 256
        tokens``."""
        source = COLLECTION_SOURCES.get(self.dataset_name, ("", ""))[0]
        parts = [f"{self.num_queries} queries" if self.num_queries is not None else ""]
        if self.first_stage:
            label = first_stage_label(self.first_stage)
            parts.append(f"{label} top {self.depth}" if self.depth else f"{label}'s candidates")
        parts.append(f"pairs of up to {self.max_length} tokens" if self.max_length else "")
        details = ", ".join(part for part in parts if part)
        return f"{self.dataset_name}" + (f" ({source})" if source else "") + (f": {details}" if details else "")

    def caption(self) -> str:
        """The collection, what was evaluated on it, and whether these are results (a test) or selection figures."""
        return f"**{self.describe()}**; {figures_role(self.chosen_on)}."

    def fusion_sentence(self) -> str:
        """What the stored fusion did on these queries, where it kept the first stage's ranking."""
        if not self.fused_system or self.fused_system not in self.systems or self.fusion_changes_ranking:
            return ""
        first_stage = first_stage_label((self.fusion or {}).get("first_stage") or self.first_stage or "first stage")
        setting = (
            f" ({self.fusion['method']}, alpha {self.fusion['alpha']:g})"
            if self.fusion and "method" in self.fusion
            else ""
        )
        return (
            f"The stored fusion{setting} kept {first_stage}'s order on every query: its figures are {first_stage}'s, "
            "so no fusion is listed."
        )

    def p_value_sentence(self) -> str:
        """The p-values of this model (and of a listed fusion) against the first stage, for the reported measures."""
        if self.comparison is None or not self.comparison.reference:
            return ""
        names = self.shown_names()
        parts = []
        for system in (self.model_system, self.fused_system if self.lists_fusion else None):
            values = self.comparison.p_values.get(system or "", {})
            shown = [
                f"{display_name(m)} {values[m]:.3f}"
                for m in self.comparison.measures
                if m in HUB_METRICS and m in values
            ]
            if shown:
                parts.append(f"{names[system]}: {', '.join(shown)}")
        if not parts:
            return ""
        return f"p against {names.get(self.comparison.reference, self.comparison.reference)}: " + "; ".join(parts) + "."

    def section(self) -> str:
        """The caption, the table (with the significance marks of ``python -m eval compare``), the fusion's verdict,
        the p-values and the note."""
        parts = (self.caption(), markdown_table(self.shown()).strip(), self.fusion_sentence(), self.p_value_sentence(),
                 self.note)  # fmt: skip
        return "\n\n".join(part for part in parts if part)

    def model_index_dataset(self) -> dict:
        """model-index's ``dataset`` of this evaluation: its name says what was evaluated, its args how."""
        args = {"queries": self.num_queries, "first_stage": self.first_stage, "depth": self.depth,
                "max_length": self.max_length}  # fmt: skip
        return {
            "dataset_type": self.dataset_type,
            "dataset_name": self.describe(),
            "dataset_args": {key: value for key, value in args.items() if value is not None} or None,
        }

    def eval_results(self) -> list[EvalResult]:
        """The checkpoint's results as model-index entries (task ``text-ranking``), and those of its fusion with the
        first stage where the fusion changed the ranking (an entry of its own, task ``text-retrieval``: model-index
        keeps one entry per task and dataset); none on queries anything was chosen on."""
        if self.chosen_on:
            return []
        entries = [(self.model_system, "text-ranking", f"{self.model_system}: re-ranking the first stage's candidates")]
        if self.lists_fusion:
            entries.append((self.fused_system, "text-retrieval", self.fused_label()))
        shown = self.shown()
        names = self.shown_names()
        return [
            EvalResult(
                task_type=task_type,
                task_name=task_name,
                **self.model_index_dataset(),
                metric_type=HUB_METRICS[measure],
                metric_name=display_name(measure),
                metric_value=round(float(shown.means[names[system]][measure]), 4),
            )
            for system, task_type, task_name in entries
            for measure in shown.measures
            if measure in HUB_METRICS
        ]

    def hub_results(self) -> list[HubResult]:
        """The model-index results as the Hub's evaluation results (none off the Hub or on selection queries)."""
        if not self.hub_dataset:
            return []
        dataset_id, task_id = self.hub_dataset
        return [
            HubResult(
                dataset_id,
                task_id,
                result.metric_type,
                result.metric_value,
                f"{result.metric_name}; {result.task_name}; {result.dataset_name}",
                "" if result.task_type == "text-ranking" else "fused",
            )
            for result in self.eval_results()
        ]


@dataclass
class CardInputs:
    """What the card says about a checkpoint.

    Args:
        repo_id: the Hub id the checkpoint is (or will be) published under.
        base_model: the checkpoint training started from (a Hub id where one exists).
        training_datasets: ``[(Hub id or path, description)]`` of the task datasets.
        recipe: the training settings actually used, as ``{name: value}``.
        max_length: the pair length the checkpoint is configured for.
        evaluation: measured results, or None.
        nanobeir: NanoBEIR's figures (``python -m eval nanobeir``'s record), or None: in model-index as
            sentence-transformers' cards write them unless the checkpoint was chosen on them.
        license: the weights' license id.
        fusion: ``(method, alpha, dev collection)`` stored in ``config.json``, or None.
        fusion_evidence: the cross-validation behind the stored fusion (``config.json``'s ``fusion_cv``), or None.
        more_evaluations: further collections, after ``evaluation`` (e.g. a second test and the dev queries).
        chart: the comparison chart's file name in the model folder, or None.
        checkpoint_selection: how the checkpoint was chosen during training, with the figure it was chosen by (a
            sentence; a selection figure, not a result), or empty.
    """

    repo_id: str
    base_model: str
    training_datasets: list[tuple[str, str]] = field(default_factory=list)
    recipe: dict[str, object] = field(default_factory=dict)
    max_length: int = 512
    evaluation: Evaluation | None = None
    license: str = "apache-2.0"
    limitations: str = DEFAULT_LIMITATIONS
    fusion: tuple[str, float, str] | None = None
    method: str = "wikiformer"
    fusion_evidence: dict | None = None
    more_evaluations: list[Evaluation] = field(default_factory=list)
    chart: str | None = None
    checkpoint_selection: str = ""
    nanobeir: NanoBEIRRecord | None = None


NANOBEIR_TASKS = {"set": "Cross Encoder Reranking", "mean": "Cross Encoder Nano BEIR"}
"""model-index's task names of NanoBEIR's figures, as sentence-transformers' cards write them (per set; the mean)."""


def nanobeir_eval_results(record: NanoBEIRRecord) -> list[EvalResult]:
    """NanoBEIR's figures as model-index entries the way sentence-transformers' cards write them (task ``Cross
    Encoder Reranking`` per set, ``Cross Encoder Nano BEIR`` for the mean; dataset type ``NanoMSMARCO_R100``, metric
    types ``map``, ``mrr@10``, ``ndcg@10``), so that the Hub compares them with other re-rankers'; none when the
    checkpoint was chosen on them."""
    if record.chosen_on:
        return []
    prefixes = [(record.set_prefix(name), NANOBEIR_TASKS["set"]) for name in record.sets]
    prefixes.append((record.aggregate, NANOBEIR_TASKS["mean"]))
    return [
        EvalResult(
            task_type=task.lower().replace(" ", "-"),
            task_name=task,
            dataset_type=prefix,
            dataset_name=prefix.replace("_", " "),
            metric_type=key,
            metric_name=key.replace("_", " ").title(),
            metric_value=round(float(record.results[f"{prefix}_{key}"]), 4),
        )
        for prefix, task in prefixes
        for key in (record.metric_key("map"), record.metric_key("mrr"), record.metric_key("ndcg"))
    ]


def nanobeir_section(record: NanoBEIRRecord) -> str:
    """NanoBEIR's figures for the card: what was measured, whether a result or a selection figure, the table."""
    caption = (
        f"**NanoBEIR** (`{record.dataset_id}`, {len(record.sets)} sets: {', '.join(record.sets)}): each query's BM25 "
        f"top {record.rerank_k} re-ranked"
        + (", with the positives BM25 missed added" if record.always_rerank_positives else "")
        + f"; {figures_role(record.chosen_on)}. Computed as sentence-transformers' `CrossEncoderNanoBEIREvaluator` computes them (binary "
        "relevance, scikit-learn's nDCG and AP over the candidate list): comparable with other re-ranker cards' "
        f"`{record.primary_metric}`, not with the trec_eval figures above."
    )
    return f"{caption}\n\n{record.markdown_table().strip()}"


METHODS = {
    "wikiformer": (
        "A **Wikiformer** re-ranker: a BERT cross-encoder that scores a (query, document) pair with one relevance "
        "logit,\npre-trained on pseudo query-document groups built from the structure of Wikipedia (Wikiformer, "
        "AAAI 2024).",
        """@inproceedings{su2024wikiformer,
  title     = {Wikiformer: Pre-training with Structured Information of Wikipedia for Ad-hoc Retrieval},
  author    = {Su, Weihang and Ai, Qingyao and Li, Xiangsheng and Chen, Jia and Liu, Yiqun and Wu, Xiaolong and Hou, Shengluan},
  booktitle = {Proceedings of the AAAI Conference on Artificial Intelligence},
  year      = {2024}
}""",
    ),
    "prop": (
        "A **PROP** re-ranker: a BERT cross-encoder that scores a (query, document) pair with one relevance logit,\n"
        "pre-trained on PROP's Representative Words Prediction (Ma et al., WSDM 2021), a baseline of Wikiformer.",
        PROP.citation,
    ),
    "harp": (
        "A **HARP** re-ranker: a BERT cross-encoder that scores a (query, document) pair with one relevance logit,\n"
        "pre-trained on HARP's four hyperlink tasks (Ma et al., CIKM 2021), a baseline of Wikiformer.",
        HARP.citation,
    ),
}
"""Per pre-training method: the card's opening sentence and the BibTeX entry."""


def hub_results(inputs: CardInputs) -> list[HubResult]:
    """Every test figure of the card that belongs to a dataset on the Hub, as the Hub's evaluation results."""
    evaluations = ([inputs.evaluation] if inputs.evaluation else []) + list(inputs.more_evaluations)
    results = [result for evaluation in evaluations for result in evaluation.hub_results()]
    return results + (nanobeir_hub_results(inputs.nanobeir) if inputs.nanobeir else [])


def render_model_card(inputs: CardInputs) -> ModelCard:
    """The model card for a checkpoint, from ``model_card.md``."""
    evaluation = inputs.evaluation
    evaluations = ([evaluation] if evaluation else []) + list(inputs.more_evaluations)
    text_terms = [COLLECTION_SOURCES.get(e.dataset_name, ("", ""))[1] for e in evaluations]  # where the kit knows them
    tests = [e for e in evaluations if not e.chosen_on]
    selections = [e for e in evaluations if e.chosen_on]
    hub_datasets = [name for name, _ in inputs.training_datasets if "/" in name and not Path(name).exists()]
    card_data = ModelCardData(
        language="en",
        license=inputs.license,
        library_name="sentence-transformers",
        pipeline_tag="text-ranking",
        tags=["sentence-transformers", "transformers", "cross-encoder", "reranker", "text-ranking", "wikiformer"]
        + ([inputs.method] if inputs.method != "wikiformer" else []),
        base_model=inputs.base_model if "/" in inputs.base_model else None,
        datasets=hub_datasets or None,
        model_name=inputs.repo_id.split("/")[-1],
        eval_results=[result for e in tests for result in e.eval_results()]
        + (nanobeir_eval_results(inputs.nanobeir) if inputs.nanobeir else [])
        or None,
    )
    nanobeir = nanobeir_section(inputs.nanobeir) if inputs.nanobeir else ""
    nanobeir_chosen = bool(inputs.nanobeir and inputs.nanobeir.chosen_on)
    chart_of = evaluation.shown() if evaluation else None
    return ModelCard.from_template(
        card_data,
        template_path=str(TEMPLATE),
        model_name=inputs.repo_id.split("/")[-1],
        repo_id=inputs.repo_id,
        paper_url=PAPER_URL,
        paper_code_url=PAPER_CODE_URL,
        transformers_range=TRANSFORMERS_RANGE,
        base_model_name=inputs.base_model,
        max_length=inputs.max_length,
        training_datasets=inputs.training_datasets,
        recipe=list(inputs.recipe.items()),
        checkpoint_selection=inputs.checkpoint_selection,
        results_table="\n\n".join(e.section() for e in tests),
        selection_table="\n\n".join([*(e.section() for e in selections), *([nanobeir] if nanobeir_chosen else [])]),
        nanobeir_section="" if nanobeir_chosen else nanobeir,
        eval_dataset_name=evaluation.dataset_name if evaluation else "",
        chart=inputs.chart,
        chart_reference=chart_of.reference if chart_of and chart_of.reference else "",
        limitations=inputs.limitations,
        license=inputs.license,
        evaluation_terms="; ".join(dict.fromkeys(terms for terms in text_terms if terms)),
        intro=METHODS[inputs.method][0],
        citation=METHODS[inputs.method][1],
        fusion_method=inputs.fusion[0] if inputs.fusion else "zscore",
        fusion_alpha=inputs.fusion[1] if inputs.fusion else 0.7,
        fusion_dev=inputs.fusion[2] if inputs.fusion else "",
        fusion_evidence=fusion_evidence_text(inputs.fusion_evidence),
    )


def fusion_evidence_text(evidence: dict | None) -> str:
    """The cross-validation behind a stored fusion, in words (empty without one)."""
    if not evidence or "folds" not in evidence:
        return ""
    low, high = evidence["interval"]
    gain_low, gain_high = evidence["gain_interval"]
    text = (
        f"It was chosen by {evidence['folds']}-fold cross-validation over the {evidence['dev_queries']} dev queries, "
        "preferring the first stage alone, then the smallest alpha, unless a larger one wins by more than the folds' "
        f"spread: cross-validated {evidence['measure']} {evidence['estimate']:.4f} (95% interval {low:.4f} to "
        f"{high:.4f}) against {evidence['first_stage']:.4f} for the first stage alone, a gain of "
        f"{evidence['gain']:+.4f} ({gain_low:+.4f} to {gain_high:+.4f})."
    )
    if not evidence["beats_first_stage"]:
        text += (
            " **On these dev queries the fused model does not beat the first stage beyond the folds' noise**: "
            "`fusion_alpha` is 0, so the stored fusion keeps the first stage's order."
        )
    return text


def write_model_card(model_dir: str | Path, inputs: CardInputs) -> Path:
    """Render the card into ``model_dir/README.md`` (and the Hub's evaluation results files beside it, where its test
    figures belong to datasets on the Hub: :func:`hub_results`); returns the card's path."""
    path = Path(model_dir) / "README.md"
    path.write_text(as_run(str(render_model_card(inputs))), encoding="utf-8")
    write_eval_results(model_dir, hub_results(inputs))
    return path
