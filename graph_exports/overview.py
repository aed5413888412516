"""The clustered overview of a large page: one meta-node per community, named by what is
distinctive about it.

A community's name is its most *distinctive* entities, not its most frequent ones: each entity
linked to papers of the community scores ``share * log(P / df)``, where ``share`` is the fraction
of the community's papers that link to it, ``P`` the papers on the page and ``df`` the papers
that link to it anywhere (tf-idf over communities). "large language model", linked from a
third of all papers, scores low everywhere and names nothing; an entity most papers of the
community share and few others do names it. Entities linked from more than 5 % of all papers
(and more than 20), or from more than half of them, never name a community.

``overview(g, nodes, groups, positions)`` returns plain data for the page's ``meta.overview``.

>>> import networkx as nx
>>> g = nx.MultiDiGraph()
>>> for i in range(4):
...     g.add_node(f"paper:{i}", label="Paper", year=2020 + i)
>>> g.add_node("method:llm", label="Method", name="LLM")
>>> g.add_node("dataset:a", label="Dataset", name="A")
>>> g.add_node("dataset:b", label="Dataset", name="B")
>>> for i in range(4):
...     _ = g.add_edge(f"paper:{i}", "method:llm", key="USES")
>>> for i, d in ((0, "a"), (1, "a"), (2, "b"), (3, "b")):
...     _ = g.add_edge(f"paper:{i}", f"dataset:{d}", key="EVALUATES_ON")
>>> groups = [{"paper:0", "paper:1", "dataset:a"}, {"paper:2", "paper:3", "dataset:b", "method:llm"}]
>>> pos = {n: (0.0, 0.0) for n in g}
>>> [c["name"] for c in overview(g, sorted(g), groups, pos)["communities"]]
['A', 'B']
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import networkx as nx

__all__ = ["overview", "MAX_COMMUNITIES", "NAME_TERMS"]

#: Communities drawn as their own meta-node; the rest share one ("smaller groups").
MAX_COMMUNITIES = 80
#: Entities in a community's name.
NAME_TERMS = 3
#: Entities linked from more than this share of the page's papers (and more than 20 papers)
#: are too general to name a community ("large language model" in ML abstracts).
GENERAL_SHARE = 0.05


def overview(
    g: nx.MultiDiGraph,
    nodes: Sequence[str],
    groups: Sequence[set[str]],
    positions: dict[str, tuple[float, float]],
    *,
    max_communities: int = MAX_COMMUNITIES,
) -> dict[str, Any]:
    """Meta-nodes for the communities of a page (``groups``, largest first, as the page numbers
    them): ``{"communities": [...], "pooled": [community indices], "links": [[a, b, edges]]}``.

    Each community: ``i`` (its index), ``name`` (its distinctive entities joined by " · "),
    ``top`` (``[entity id, name, papers in the community]``, up to eight), ``size``, ``papers``,
    ``x``/``y`` (the centre of its members), ``year`` (mean year of its papers, or ``None``),
    ``yearMin``/``yearMax``, ``periods`` (what it was about when: see :func:`_periods`). Communities past ``max_communities`` are pooled into one entry
    with ``i`` = -2.
    """
    shown = set(nodes)
    label = {n: g.nodes[n].get("label") for n in shown}
    papers_total = sum(1 for n in shown if label[n] == "Paper")
    # df: papers on the page linking to each entity
    df: Counter[str] = Counter()
    entities_of: dict[str, set[str]] = {}
    for n in shown:
        if label[n] != "Paper":
            continue
        ents = {
            v
            for _u, v, k in g.out_edges(n, keys=True)
            if v in shown and k != "RELATED_TO" and label.get(v) != "Paper"
        }
        entities_of[n] = ents
        df.update(ents)
    member = {n: i for i, c in enumerate(groups) for n in c}
    out = []
    pooled: list[int] = []
    big = [i for i, c in enumerate(groups) if len(c) > 1][:max_communities]
    keep = set(big)
    for i, _group in enumerate(groups):
        if i not in keep:
            pooled.append(i)
    for i in big:
        out.append(_describe(g, i, groups[i], label, entities_of, df, papers_total, positions))
    if pooled:
        members = set().union(*(groups[i] for i in pooled))
        rec = _describe(g, -2, members, label, entities_of, df, papers_total, positions)
        rec["name"] = f"{len(pooled):,} smaller groups and unconnected nodes"
        out.append(rec)
    links: Counter[tuple[int, int]] = Counter()
    pool = set(pooled)
    for u, v, k in g.edges(keys=True):
        if u not in shown or v not in shown or k == "RELATED_TO":
            continue
        a, b = member.get(u, -1), member.get(v, -1)
        a, b = (-2 if a in pool else a), (-2 if b in pool else b)
        if a != b:
            links[(min(a, b), max(a, b))] += 1
    strongest: dict[int, list[tuple[int, tuple[int, int]]]] = defaultdict(list)
    for pair, count in links.items():
        for end in pair:
            strongest[end].append((count, pair))
    chosen = set()
    for found in strongest.values():  # each community's three strongest links
        for _count, pair in sorted(found, key=lambda t: (-t[0], t[1]))[:3]:
            chosen.add(pair)
    return {
        "communities": out,
        "pooled": pooled,
        "links": [[a, b, links[(a, b)]] for a, b in sorted(chosen)],
    }


def _describe(g, i, members, label, entities_of, df, papers_total, positions) -> dict[str, Any]:
    papers = sorted(n for n in members if label.get(n) == "Paper")
    count: Counter[str] = Counter()
    for p in papers:
        count.update(entities_of.get(p, ()))
    scored = []
    general = max(20.0, GENERAL_SHARE * papers_total)
    for ent, c in count.items():
        if c < 2 and len(papers) > 2:
            continue  # one paper's entity names no group
        if df[ent] > general or 2 * df[ent] > papers_total:
            continue  # linked from a large part of the whole page: names no group
        share = c / max(len(papers), 1)
        idf = math.log((papers_total + 1) / (df[ent] + 0.5))
        scored.append((share * idf, c, ent))
    scored.sort(key=lambda t: (-t[0], -t[1], t[2]))
    top = [[ent, str(g.nodes[ent].get("name") or ent), c] for _s, c, ent in scored[:8]]
    if top:
        name = " · ".join(str(t[1]) for t in top[:NAME_TERMS])
    else:  # no shared entity: its biggest members
        biggest = sorted(members, key=lambda n: (-g.degree(n), n))[:NAME_TERMS]
        name = " · ".join(str(g.nodes[n].get("name") or n) for n in biggest)
    xs = [positions[n][0] for n in members if n in positions]
    ys = [positions[n][1] for n in members if n in positions]
    years = []
    for p in papers:
        try:
            years.append(int(g.nodes[p].get("year")))
        except (TypeError, ValueError):
            pass
    periods = _periods(g, papers, entities_of, df, papers_total)
    return {
        "i": i,
        "name": name,
        "top": top,
        "periods": periods,
        "size": len(members),
        "papers": len(papers),
        "x": round(sum(xs) / len(xs)) if xs else 0,
        "y": round(sum(ys) / len(ys)) if ys else 0,
        "year": round(sum(years) / len(years), 1) if years else None,
        "yearMin": min(years) if years else None,
        "yearMax": max(years) if years else None,
    }


#: A community's papers are cut into at most this many periods for "what it was about when".
PERIODS = 3


def _periods(g, papers, entities_of, df, papers_total) -> list[list[Any]]:
    """``[first year, last year, papers, top]`` per period of a community whose dated papers span
    three years or more: the years cut so that each period holds about the same number of papers,
    ``top`` its five most distinctive entities (``[entity id, name, papers]``; share in the period
    times the page-wide IDF, as for the community's name)."""
    dated = sorted(
        (int(g.nodes[p]["year"]), p) for p in papers if isinstance(g.nodes[p].get("year"), int)
    )
    years = sorted({y for y, _ in dated})
    if len(years) < 3 or len(dated) < 2 * PERIODS:
        return []
    cuts: list[int] = []
    for k in range(1, PERIODS):
        y = dated[k * len(dated) // PERIODS][0]
        if (not cuts or y > cuts[-1]) and y > years[0]:
            cuts.append(y)
    bounds = [years[0], *cuts, years[-1] + 1]
    general = max(20.0, GENERAL_SHARE * papers_total)
    out: list[list[Any]] = []
    for lo, hi in zip(bounds, bounds[1:], strict=False):
        inside = [p for y, p in dated if lo <= y < hi]
        if not inside:
            continue
        count: Counter[str] = Counter()
        for p in inside:
            count.update(entities_of.get(p, ()))
        scored = sorted(
            ((c / len(inside)) * math.log((papers_total + 1) / (df[e] + 0.5)), c, e)
            for e, c in count.items()
            if (c >= 2 or len(inside) <= 2) and df[e] <= general and 2 * df[e] <= papers_total
        )
        scored.sort(key=lambda t: (-t[0], -t[1], t[2]))
        top = [[e, str(g.nodes[e].get("name") or e), c] for _s, c, e in scored[:5]]
        out.append([lo, max(y for y, p in dated if lo <= y < hi), len(inside), top])
    return out
