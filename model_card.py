"""Render ``model_card.md`` into a checkpoint's ``README.md`` with huggingface_hub's ``ModelCard``.

The card states only what was measured for the checkpoint: its evaluation results come from the metrics JSON
that ``python -m eval rerank`` wrote for it, and go into ``model-index`` as ``EvalResult`` entries (nDCG, MRR),
which the Trainer's own card would drop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from huggingface_hub import EvalResult, ModelCard, ModelCardData

TEMPLATE = Path(__file__).resolve().parent / "model_card.md"
PAPER_URL = "https://arxiv.org/abs/2312.10661"
PAPER_CODE_URL = "https://github.com/oneal2000/Wikiformer"
CHART = "comparison.png"
"""The comparison chart's name in the model folder (embedded in the card)."""
HUB_DATASETS = {"dl20-mini": ("Tevatron/msmarco-passage", "dl20")}
"""Collections the kit ships a sample of: their Hub dataset id and split, for model-index."""
TRANSFORMERS_RANGE = "4.46 to 5.x"
"""The transformers versions the remote code is tested with."""
WIDGET = [
    {
        "source_sentence": "what is albedo",
        "sentences": [
            "Albedo is the fraction of sunlight that a surface reflects.",
            "Paris is the capital and largest city of France.",
        ],
    }
]
CARD_MEASURES = {"nDCG@10": "ndcg_at_10", "RR@10": "mrr_at_10", "RR(rel=2)@10": "mrr_at_10", "nDCG@100": "ndcg_at_100"}
"""Measures (as ``eval`` names them) that go into model-index, with their Hub metric types."""

DEFAULT_LIMITATIONS = (
    "A cross-encoder re-ranks a first stage's candidates; it does not retrieve from a corpus by itself. "
    "Texts longer than the maximum length are truncated. Pre-training on Wikipedia structure teaches topical "
    "relevance in encyclopedic English; other domains and languages need fine-tuning."
)


@dataclass
class Evaluation:
    """Measured results of one checkpoint on one collection.

    Args:
        dataset_name: the collection's name (shown in the card and model-index).
        dataset_type: a stable id for the collection (model-index ``dataset.type``).
        systems: ``{system name: {measure: mean}}``, the checkpoint's own row under ``model_system``.
        model_system: which system is this checkpoint.
        relevance_level: smallest relevant grade for binary measures, if set.
        note: how the candidates and queries were chosen.
        fused_system: the system that is this checkpoint fused with the first stage, if measured (shown beside the
            raw row and added to model-index as an entry of its own, task ``text-retrieval``).
        chosen_on: what was chosen on these queries (``"the checkpoint and the fusion"``): a dev collection, labelled
            so in the card and model-index; empty for a test collection, on which nothing was chosen.
        num_queries: the number of queries averaged over.
        reference: the first stage the ``p_values`` are against; p_values: ``{system: {measure: p}}``.
        dataset_split: the split the queries are from (model-index ``dataset.split``).
        setup: how candidates were formed, e.g. ``{"first_stage": "bm25", "depth": 20}`` (model-index
            ``dataset.args``).
    """

    dataset_name: str
    dataset_type: str
    systems: dict[str, dict[str, float]]
    model_system: str
    relevance_level: int | None = None
    note: str = ""
    fused_system: str | None = None
    chosen_on: str = ""
    num_queries: int | None = None
    reference: str | None = None
    p_values: dict[str, dict[str, float]] = field(default_factory=dict)
    dataset_split: str | None = None
    setup: dict | None = None

    @classmethod
    def from_metrics_json(cls, path: str | Path, model_system: str, dataset_name: str, **kwargs) -> Evaluation:
        """Read the ``metrics.json`` of ``python -m eval rerank`` (``{system: {"means": {...}, ...}}``)."""
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
        if model_system not in payload:
            raise ValueError(f"{path} has no results for {model_system!r} (systems: {', '.join(payload)})")
        systems = {name: result["means"] for name, result in payload.items()}
        level = payload[model_system].get("relevance_level")
        hub_id, split = HUB_DATASETS.get(dataset_name, (dataset_name, None))
        kwargs.setdefault("dataset_split", split)
        return cls(dataset_name, kwargs.pop("dataset_type", hub_id), systems, model_system, level, **kwargs)

    def table(self) -> str:
        """A Markdown table of every system's means, the best value of each measure in bold."""
        measures = list(next(iter(self.systems.values())))
        best = {m: max(values.get(m, float("-inf")) for values in self.systems.values()) for m in measures}
        lines = ["| system | " + " | ".join(measures) + " |", "|---" * (len(measures) + 1) + "|"]
        for name, values in self.systems.items():
            label = (
                f"**{name}** (this model)"
                if name == self.model_system
                else f"**{name}** (this model fused with the first stage)"
                if name == self.fused_system
                else name
            )
            cells = [f"**{values[m]:.4f}**" if values[m] == best[m] else f"{values[m]:.4f}" for m in measures]
            cells = [cell + self._significance(name, m) for cell, m in zip(cells, measures, strict=True)]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        return "\n".join(lines)

    def _significance(self, system: str, measure: str) -> str:
        """`` (p = 0.030 ▼)``: the p-value against the first stage, marked where p < 0.05 (for the measures that
        go into model-index)."""
        p = self.p_values.get(system, {}).get(measure)
        if p is None or system == self.reference or measure not in CARD_MEASURES:
            return ""
        mark = ""
        if p < 0.05 and self.reference in self.systems:
            better = self.systems[system][measure] > self.systems[self.reference][measure]
            mark = " ▲" if better else " ▼"
        return f" (p {'< 0.001' if p < 0.001 else f'= {p:.3f}'}{mark})"

    def caption(self) -> str:
        """What the figures are: the collection, dev or test (whether anything was chosen on its queries), how many
        queries, and what the p-values are against."""
        queries = f"{self.num_queries} queries" if self.num_queries is not None else "its queries"
        role = (
            f"**dev**: {self.chosen_on} were chosen on these {queries}, so its figures are not a test result"
            if self.chosen_on
            else f"**test**: nothing was chosen on these {queries}"
        )
        level = f"; binary measures at relevance ≥ {self.relevance_level}" if self.relevance_level else ""
        significance = (
            f"; p: Fisher's randomization test against the first stage `{self.reference}` (▲/▼: significantly "
            "better/worse, p < 0.05)"
            if self.p_values and self.reference
            else ""
        )
        return f"**{self.dataset_name}**, {role}{level}{significance}."

    def section(self) -> str:
        """The caption, the table and the note."""
        return "\n\n".join(part for part in (self.caption(), self.table(), self.note) if part)

    def eval_results(self, fused: bool = False) -> list[EvalResult]:
        """The checkpoint's results as model-index entries; with ``fused``, those of its fusion with the first stage
        (if measured), as a ``text-retrieval`` entry of their own: the pipeline's figures, not the checkpoint's
        (model-index keeps one entry per task and dataset)."""
        system = self.fused_system if fused else self.model_system
        if system not in self.systems:
            return []
        return [
            EvalResult(
                task_type="text-retrieval" if fused else "text-ranking",
                task_name="First stage fused with this re-ranker" if fused else "Re-ranking the first stage",
                dataset_type=self.dataset_type,
                dataset_name=self.dataset_name + (" (dev)" if self.chosen_on else ""),
                dataset_split=self.dataset_split,
                dataset_args=self.setup,
                metric_type=CARD_MEASURES[measure],
                metric_name=measure,
                metric_value=round(float(value), 4),
            )
            for measure, value in self.systems[system].items()
            if measure in CARD_MEASURES
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
        license: the weights' license id.
        fusion: ``(method, alpha, dev collection)`` stored in ``config.json``, or None.
        fusion_evidence: the cross-validation behind the stored fusion (``config.json``'s ``fusion_cv``), or None.
        more_evaluations: further collections, after ``evaluation`` (e.g. a second test and the dev queries).
        chart: the comparison chart's file name in the model folder, or None.
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
}
"""Per pre-training method: the card's opening sentence and the BibTeX entry (the baselines add theirs)."""


def _register_baselines() -> None:
    from wikiformer_kit.dataset_scripts.tasks.anchors import HARP
    from wikiformer_kit.dataset_scripts.tasks.prop import PROP

    METHODS["prop"] = (
        "A **PROP** re-ranker: a BERT cross-encoder that scores a (query, document) pair with one relevance logit,\n"
        "pre-trained on PROP's Representative Words Prediction (Ma et al., WSDM 2021), a baseline of Wikiformer.",
        PROP.citation,
    )
    METHODS["harp"] = (
        "A **HARP** re-ranker: a BERT cross-encoder that scores a (query, document) pair with one relevance logit,\n"
        "pre-trained on HARP's four hyperlink tasks (Ma et al., CIKM 2021), a baseline of Wikiformer.",
        HARP.citation,
    )


def render_model_card(inputs: CardInputs) -> ModelCard:
    """The model card for a checkpoint, from ``model_card.md``."""
    if inputs.method not in METHODS:
        _register_baselines()
    evaluation = inputs.evaluation
    evaluations = ([evaluation] if evaluation else []) + list(inputs.more_evaluations)
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
        eval_results=[r for e in evaluations for r in e.eval_results() + e.eval_results(fused=True)] or None,
        widget=WIDGET,
    )
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
        results_table="\n\n".join(e.section() for e in evaluations),
        eval_dataset_name=evaluation.dataset_name if evaluation else "",
        chart=inputs.chart,
        limitations=inputs.limitations,
        license=inputs.license,
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
    """Render the card into ``model_dir/README.md`` and return its path."""
    path = Path(model_dir) / "README.md"
    render_model_card(inputs).save(path)
    return path
