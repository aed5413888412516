"""How a field moves: per entity, papers per year normalised by the year's paper count, the first
year it is seen, and how fast its share rises or fades.

The rise is a *normalised slope*: the least-squares slope of the entity's yearly share (percent of
that year's papers naming it) over the years of the window, divided by its mean share in the
window, so it reads as relative growth per year (0.5: the share grows by half its mean each year;
-0.2: it fades by a fifth). Shares, not counts, so a corpus that grows tenfold does not make
everything rise. It is what CiteSpace's burst detection looks for, without Kleinberg's automaton:
a plain, reproducible number that needs no state parameters. Entities in fewer than
``min_papers`` papers of the window are left out (a share of one paper is noise).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

__all__ = [
    "PAPER_EDGE_TYPES",
    "Trend",
    "paper_years",
    "entity_year_counts",
    "annotate_years",
    "trends",
    "normalised_slope",
]

#: Paper -> entity relationship types that say a paper names an entity.
PAPER_EDGE_TYPES = ("PROPOSES", "USES", "EVALUATES_ON", "ADDRESSES", "REPORTS")
ENTITY_KINDS = ("Method", "Dataset", "Task", "Metric")


def paper_years(G: nx.MultiDiGraph) -> dict[str, int]:
    """Year of every paper node that has one."""
    out = {}
    for n, d in G.nodes(data=True):
        if d.get("label") == "Paper" and isinstance(d.get("year"), int):
            out[n] = int(d["year"])
    return out


def entity_year_counts(
    G: nx.MultiDiGraph, years: dict[str, int] | None = None
) -> dict[str, dict[int, int]]:
    """Per entity, distinct papers naming it per year (years in the order first met)."""
    years = paper_years(G) if years is None else years
    counts: dict[str, dict[int, int]] = {}
    for paper, year in years.items():
        # each neighbour once with all its edge keys: a paper counts once however many types link it
        for entity, keyed in G._succ[paper].items():
            if keyed.keys().isdisjoint(PAPER_EDGE_TYPES):
                continue
            by_year = counts.get(entity)
            if by_year is None:
                counts[entity] = {year: 1}
            else:
                by_year[year] = by_year.get(year, 0) + 1
    return counts


def annotate_years(G: nx.MultiDiGraph) -> int:
    """Set ``first_year``, ``papers_by_year`` (``{"2019": 3, ...}``, years as strings so the
    attribute survives JSON) and ``mean_year`` on every entity named by a dated paper; returns how
    many entities got them."""
    counts = entity_year_counts(G)
    annotated = len(counts)
    year_names: dict[int, str] = {}  # one "2019" string for every entity, not one each
    while counts:  # each entity's counts freed as its attributes are made (25 MB at 74,000 papers)
        entity, by_year = counts.popitem()
        total = sum(by_year.values())
        data = G.nodes[entity]
        data["first_year"] = min(by_year)
        data["papers_by_year"] = {
            year_names.setdefault(y, str(y)): by_year[y] for y in sorted(by_year)
        }
        data["mean_year"] = round(sum(y * c for y, c in by_year.items()) / total, 2)
    return annotated


def normalised_slope(years: list[int], shares: list[float]) -> float:
    """Least-squares slope of ``shares`` over ``years`` divided by their mean (0 when flat).

    >>> normalised_slope([2018, 2019, 2020], [1.0, 2.0, 3.0])
    0.5
    """
    n = len(years)
    mean_share = sum(shares) / n if n else 0.0
    if n < 2 or mean_share == 0:
        return 0.0
    mean_year = sum(years) / n
    var = sum((y - mean_year) ** 2 for y in years)
    if var == 0:
        return 0.0
    pairs = zip(years, shares, strict=True)
    slope = sum((y - mean_year) * (s - mean_share) for y, s in pairs) / var
    return slope / mean_share


@dataclass
class Trend:
    """One entity's course over the window."""

    entity: str
    name: str
    label: str
    first_year: int
    papers: int
    counts: dict[int, int]
    shares: dict[int, float] = field(default_factory=dict)  # percent of the year's papers
    rise: float = 0.0
    slope: float = 0.0  # percentage points per year

    def to_dict(self) -> dict[str, Any]:
        return {
            "entity": self.entity,
            "name": self.name,
            "label": self.label,
            "first_year": self.first_year,
            "papers": self.papers,
            "papers_by_year": {str(y): c for y, c in sorted(self.counts.items())},
            "share_by_year": {str(y): round(s, 3) for y, s in sorted(self.shares.items())},
            "rise": round(self.rise, 4),
            "slope": round(self.slope, 4),
        }


def trends(
    G: nx.MultiDiGraph,
    *,
    label: str | None = None,
    since: int | None = None,
    until: int | None = None,
    min_papers: int = 3,
) -> list[Trend]:
    """Every entity (of ``label``) named by at least ``min_papers`` papers dated within
    ``[since, until]``, with its yearly counts and shares and its rise; sorted by rise, highest
    first. ``first_year`` is over the whole graph, not the window.

    Raises:
        ValueError: the graph has no dated papers in the window.
    """
    years = paper_years(G)
    window = {
        p: y
        for p, y in years.items()
        if (since is None or y >= since) and (until is None or y <= until)
    }
    if not window:
        raise ValueError(
            "no paper has a year in the window"
            if years
            else "no paper has a year: trends need the corpus's year field"
        )
    totals = Counter(window.values())
    span = list(range(min(totals), max(totals) + 1))
    span = [y for y in span if totals[y] > 0]
    all_counts = entity_year_counts(G, years)
    out = []
    for entity, by_year in all_counts.items():
        data = G.nodes[entity]
        if data.get("label") not in ENTITY_KINDS or (
            label is not None and data.get("label") != label
        ):
            continue
        inside = {y: c for y, c in by_year.items() if y in totals}
        papers = sum(inside.values())
        if papers < min_papers:
            continue
        shares = {y: 100.0 * inside.get(y, 0) / totals[y] for y in span}
        ys, ss = span, [shares[y] for y in span]
        rise = normalised_slope(ys, ss)
        mean_share = sum(ss) / len(ss) if ss else 0.0
        out.append(
            Trend(
                entity=entity,
                name=str(data.get("name", entity)),
                label=str(data["label"]),
                first_year=min(by_year),
                papers=papers,
                counts=dict(sorted(inside.items())),
                shares=shares,
                rise=rise,
                slope=rise * mean_share,
            )
        )
    return sorted(out, key=lambda t: (-t.rise, -t.papers, t.name))


def year_totals(G: nx.MultiDiGraph) -> dict[int, int]:
    """Papers per year."""
    return dict(sorted(Counter(paper_years(G).values()).items()))
