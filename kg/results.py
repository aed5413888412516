"""Result nodes and leaderboards: the numbers papers report, as data.

``kg_results`` (:mod:`extractors.results`) reads ``(value, metric, dataset, method)`` records per
sentence; :func:`add_result_nodes` puts them in the graph as ``Result`` nodes,
``(:Paper)-[:REPORTS_RESULT]->(:Result)`` with ``-[:ON]->(:Dataset)``,
``-[:MEASURED_BY]->(:Metric)``
and ``-[:OF]->(:Method)`` to the entities resolution made of the mentions behind the fields, and
:func:`leaderboard` ranks them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import networkx as nx

from .model import ResultMention
from .resolve import Resolution, canonical_key, entity_id
from .schema import RESULT_LABEL

__all__ = [
    "LOWER_IS_BETTER",
    "ResultRow",
    "result_node_id",
    "add_result_nodes",
    "paper_results",
    "leaderboard",
    "display_value",
]

#: Metrics where a smaller number is better: a leaderboard of them ranks ascending.
LOWER_IS_BETTER = frozenset(
    "error loss mse mae rmse nll fid kid fvd lpips wer cer perplexity ppl latency time memory "
    "cost ece "
    "eer hd95 distance regret violation violations bpd".split()
)

#: Field -> (relationship type, entity label) of a Result's links.
RESULT_LINKS: dict[str, tuple[str, str]] = {
    "dataset": ("ON", "DATASET"),
    "metric": ("MEASURED_BY", "METRIC"),
    "method": ("OF", "METHOD"),
}


def result_node_id(paper_id: str, index: int) -> str:
    """``result:<paper id>:<n>``, n counting the paper's results in text order from 1."""
    return f"result:{paper_id}:{index}"


def display_value(value: float, unit: str) -> str:
    """``70.6%``, ``2.1x``, ``4.3 points``, ``0.85``."""
    number = f"{value:g}"
    if unit in {"%", "x"}:
        return number + unit
    return f"{number} {unit}".strip()


def _name(r: ResultMention) -> str:
    if r.kind == "speedup" and r.metric == "speed":
        return " ".join(
            [
                display_value(r.value, r.unit),
                "faster",
                *([f"than {r.baseline}"] if r.baseline else []),
            ]
        )
    parts = [display_value(r.value, r.unit), r.metric]
    if r.kind != "score":
        parts.insert(0, {"improvement": "+", "reduction": "-", "speedup": ""}[r.kind])
        parts = [parts[0] + parts[1], *parts[2:]]
    if r.dataset:
        parts.append(f"on {r.dataset}")
    return " ".join(parts)


class _Links:
    """The entity each field of a result names: the entity of the mention at its span, else the
    entity its text's key makes, else an entity with that text among its aliases.

    Holds the mention spans of the papers with results only and the aliases of the results'
    texts only: every mention's span and every alias of the corpus would be a temporary of tens
    of MB at 74,000 papers, made while the graph and the resolution are both held.
    """

    def __init__(self, resolution: Resolution, results: list[ResultMention]) -> None:
        papers = {r.paper_id for r in results}
        self.entities = resolution.entities
        self.by_span = {
            (m.paper_id, m.start, m.end): eid
            for m, eid in resolution.assignments
            if m.paper_id in papers
        }
        self.aliases: dict[tuple[str, str], str] = {}
        wanted = {
            (label, canonical_key(text))
            for r in results
            for field, (_rel, label) in RESULT_LINKS.items()
            if (text := getattr(r, field))
        }
        if wanted:
            for entity in self.entities.values():
                for alias in entity.aliases:
                    key = (entity.label, canonical_key(alias))
                    if key in wanted:
                        self.aliases.setdefault(key, entity.id)

    def entity(
        self, label: str, text: str | None, span: tuple[int, int] | None, paper_id: str
    ) -> str | None:
        if span is not None:
            eid = self.by_span.get((paper_id, span[0], span[1]))
            if eid is not None:
                return eid
        if not text:
            return None
        key = canonical_key(text)
        eid = entity_id(label, key)
        if eid in self.entities:
            return eid
        return self.aliases.get((label, key))


def add_result_nodes(
    G: nx.MultiDiGraph, results: Iterable[ResultMention], resolution: Resolution
) -> int:
    """Add each result as a ``Result`` node linked to its paper and entities; returns how many.

    A field becomes a link when the mention behind it was resolved to an entity, or, for a metric
    the gazetteer found outside any mention, when an entity of that name or alias exists.
    """
    results = list(results)
    links = _Links(resolution, results)
    per_paper: dict[str, list[ResultMention]] = defaultdict(list)
    for r in results:
        per_paper[r.paper_id].append(r)
    added = 0
    for paper_id, found in sorted(per_paper.items()):
        pid = f"paper:{paper_id}"
        if pid not in G:
            continue
        for index, r in enumerate(sorted(found, key=lambda r: r.start), start=1):
            rid = result_node_id(paper_id, index)
            attrs = {
                k: v for k, v in r.to_dict().items() if v is not None and not k.endswith("_span")
            }
            G.add_node(rid, label=RESULT_LABEL, name=_name(r), **attrs)
            # the same evidence record as a paper -> entity edge: the value's span and its sentence
            evidence = {
                "sentence": r.sentence,
                "start": r.start,
                "end": r.end,
                "text": r.text,
                "extractor": r.extractor,
                "score": 1.0,
                "paper_id": paper_id,
            }
            G.add_edge(
                pid,
                rid,
                key="REPORTS_RESULT",
                type="REPORTS_RESULT",
                count=1,
                weight=1.0,
                evidence=[evidence],
            )
            for fieldname, (rel, label) in RESULT_LINKS.items():
                span = getattr(r, f"{fieldname}_span")
                eid = links.entity(label, getattr(r, fieldname), span, paper_id)
                if eid is not None and eid in G:
                    G.add_edge(rid, eid, key=rel, type=rel, papers=[paper_id], evidence=[evidence])
            added += 1
    return added


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One leaderboard line."""

    result: str
    paper: str
    paper_name: str
    value: float
    unit: str
    kind: str
    metric: str
    dataset: str | None
    method: str | None
    task: str | None
    baseline: str | None
    qualifier: str | None
    sentence: str
    year: int | None

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


def _linked(G: nx.MultiDiGraph, rid: str, rel: str) -> list[str]:
    return [v for _, v, k in G.out_edges(rid, keys=True) if k == rel]


def _field_matches(
    G: nx.MultiDiGraph, rid: str, rel: str, text: str | None, wanted: str | None
) -> bool:
    """True when ``wanted`` is unset, names the entity the result links to by ``rel`` (its name,
    key or an alias), or equals the field's text (case, plural and dashes ignored)."""
    if wanted is None:
        return True
    key = canonical_key(wanted)
    if text and canonical_key(text) == key:
        return True
    for eid in _linked(G, rid, rel):
        data = G.nodes[eid]
        if data.get("key") == key or any(
            canonical_key(a) == key for a in [data.get("name", ""), *data.get("aliases", [])]
        ):
            return True
    return False


def _row(G: nx.MultiDiGraph, rid: str) -> ResultRow:
    d = G.nodes[rid]
    paper = next(
        (u for u, _, k in G.in_edges(rid, keys=True) if k == "REPORTS_RESULT"),
        f"paper:{d.get('paper_id')}",
    )
    pdata = G.nodes[paper] if paper in G else {}
    method = d.get("method")
    paper_name = str(pdata.get("name") or pdata.get("title") or paper)
    return ResultRow(
        result=rid,
        paper=paper,
        paper_name=paper_name,
        value=float(d["value"]),
        unit=str(d.get("unit", "")),
        kind=str(d.get("kind", "score")),
        metric=str(d.get("metric", "")),
        dataset=d.get("dataset"),
        method=method if method else ("(this paper)" if d.get("own") else None),
        task=d.get("task"),
        baseline=d.get("baseline"),
        qualifier=d.get("qualifier"),
        sentence=str(d.get("sentence", "")),
        year=pdata.get("year"),
    )


def paper_results(G: nx.MultiDiGraph, paper: str) -> list[ResultRow]:
    """A paper's results in text order."""
    rows = [_row(G, v) for _, v, k in G.out_edges(paper, keys=True) if k == "REPORTS_RESULT"]
    return sorted(rows, key=lambda r: int(G.nodes[r.result].get("start", 0)))


def lower_is_better(metric: str) -> bool:
    """True for error-like metrics ("MSE", "word error rate", "latency")."""
    words = set(metric.lower().replace("-", " ").split())
    return bool(words & LOWER_IS_BETTER)


def leaderboard(
    G: nx.MultiDiGraph,
    *,
    dataset: str | None = None,
    metric: str | None = None,
    task: str | None = None,
    kind: str | None = "score",
) -> list[ResultRow]:
    """Results matching the filters, best first: by value, descending, or ascending for a
    lower-is-better metric (:data:`LOWER_IS_BETTER`). ``kind`` None keeps every kind; the default
    keeps scores, which are comparable across papers (improvements are relative to each paper's
    baseline)."""
    rows = []
    for rid, d in G.nodes(data=True):
        if d.get("label") != RESULT_LABEL:
            continue
        if kind is not None and d.get("kind") != kind:
            continue
        if not (
            _field_matches(G, rid, "ON", d.get("dataset"), dataset)
            and _field_matches(G, rid, "MEASURED_BY", d.get("metric"), metric)
        ):
            continue
        if task is not None and canonical_key(str(d.get("task") or "")) != canonical_key(task):
            continue
        rows.append(_row(G, rid))

    def order(r: ResultRow) -> tuple[float, str]:
        sign = (
            1.0
            if kind in {"score", None} and lower_is_better(r.metric) and r.kind == "score"
            else -1.0
        )
        return sign * r.value, r.result

    return sorted(rows, key=order)
