"""Communities and positions of a page, computed once in Python with bounded iterations.

``communities`` (Louvain, largest first) and ``layout`` (spring layouts per component, large ones
community by community, packed without overlaps) are pure functions over a simple weighted graph
made by ``undirected``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import networkx as nx
import numpy as np

__all__ = ["undirected", "communities", "layout"]

#: Graphs up to this size are laid out in one piece; larger ones community by community.
ONE_PIECE = 350


def undirected(
    g: nx.MultiDiGraph, nodes: Sequence[str], edges: Sequence[tuple[str, str, str]]
) -> nx.Graph:
    """A simple weighted graph: one edge per connected pair, weight = number of edges."""
    h = nx.Graph()
    h.add_nodes_from(nodes)
    for u, v, _k in edges:
        if u == v:
            continue
        if h.has_edge(u, v):
            h[u][v]["weight"] += 1
        else:
            h.add_edge(u, v, weight=1)
    return h


def _induced(h: nx.Graph, nodes: Iterable[str]) -> nx.Graph:
    """The subgraph of ``h`` on ``nodes`` as a new graph with nodes and edges in sorted order.

    ``h.subgraph(a_set)`` iterates its nodes in the set's order when the set is small, and that
    order changes with ``PYTHONHASHSEED``; the layouts start from node order, so the page would too.
    """
    keep = sorted(set(nodes))
    inside = set(keep)
    sub = nx.Graph()
    sub.add_nodes_from((n, h.nodes[n]) for n in keep)
    sub.add_edges_from(
        sorted(
            (
                (min(u, v), max(u, v), d)
                for u, v, d in h.edges(keep, data=True)
                if u in inside and v in inside
            ),
            key=lambda e: (e[0], e[1]),
        )
    )
    return sub


def communities(h: nx.Graph, *, seed: int = 0) -> list[set[str]]:
    """Louvain communities of ``h``, largest first (ties by smallest node id)."""
    if h.number_of_nodes() == 0:
        return []
    if h.number_of_edges() == 0:
        return [{n} for n in sorted(h)]
    found = nx.community.louvain_communities(h, weight="weight", seed=seed)
    return sorted((set(c) for c in found), key=lambda c: (-len(c), min(c)))


def _sunflower(count: int) -> np.ndarray:
    """``count`` points spread evenly over the unit disk (first point in the centre)."""
    k = np.arange(count, dtype=float)
    r = np.sqrt(k + 0.5) / math.sqrt(max(count, 1))
    theta = k * math.pi * (3 - math.sqrt(5))
    return np.column_stack([r * np.cos(theta), r * np.sin(theta)])


def _spaced(pos: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Centre ``pos`` and scale it so that the median distance to the nearest node is 1."""
    if not pos:
        return {}
    arr = np.array(list(pos.values()), dtype=float)
    arr -= arr.mean(axis=0)
    if len(arr) > 1:
        d = np.sqrt(((arr[:, None, :] - arr[None, :, :]) ** 2).sum(axis=2))
        np.fill_diagonal(d, np.inf)
        unit = float(np.median(d.min(axis=1)))
        if unit > 1e-9:
            arr /= unit
    return {n: arr[i] for i, n in enumerate(pos)}


def _piece(h: nx.Graph, *, seed: int) -> tuple[dict[str, np.ndarray], float]:
    """Lay out one connected-ish piece with a bounded number of iterations.

    Returns positions in units of the node spacing (median nearest-neighbour distance 1) and
    the radius of the disk they fill, in the same units.
    """
    n = h.number_of_nodes()
    if n == 1:
        return {next(iter(h)): np.zeros(2)}, 0.5
    if n <= ONE_PIECE:
        iterations = 100 if n <= 60 else 40 if n <= 200 else 25
        pos = _spaced(nx.spring_layout(h, seed=seed, iterations=iterations, weight=None))
    else:
        # Too big for a dense spring layout: hubs in the middle, their neighbours around them.
        order = sorted(h, key=lambda x: (-h.degree(x), x))
        points = _sunflower(n)
        points *= math.sqrt(n / math.pi)  # n points in the unit disk sit about sqrt(pi / n) apart
        pos = {node: points[i] for i, node in enumerate(order)}
    radius = max(float(np.hypot(p[0], p[1])) for p in pos.values()) + 0.5
    return pos, radius


def layout(
    h: nx.Graph,
    groups: Sequence[set[str]] | None = None,
    *,
    seed: int = 0,
    spacing: float | None = None,
) -> dict[str, tuple[float, float]]:
    """Positions for every node of ``h``, in pixels, computed once with bounded iterations.

    Each connected component is laid out on its own, in a disk whose area grows with its size:
    small ones by a spring layout, large ones (with ``groups``, their communities) community by
    community, the community disks placed by a spring layout of the community graph. Isolated
    nodes share one grid, sorted by ``order`` then id. The blocks are then packed, largest in
    the middle, and pushed apart until none overlap.
    """
    if h.number_of_nodes() == 0:
        return {}
    if spacing is None:  # small graphs have room for bigger nodes and their names
        spacing = 85.0 if h.number_of_nodes() <= ONE_PIECE else 55.0
    comps = sorted((set(c) for c in nx.connected_components(h)), key=lambda c: (-len(c), min(c)))
    blocks: list[tuple[dict[str, np.ndarray], float]] = []
    singles: list[str] = []
    for comp in comps:
        if len(comp) == 1:
            singles.extend(comp)
        elif len(comp) <= ONE_PIECE or not groups:
            local, radius = _piece(_induced(h, comp), seed=seed)
            blocks.append(({n: p * spacing for n, p in local.items()}, radius * spacing))
        else:
            inside = [c & comp for c in groups if c & comp]
            blocks.append(_communities_block(_induced(h, comp), inside, seed=seed, spacing=spacing))
    if singles:
        blocks.append(_grid(sorted(singles, key=lambda n: (h.nodes[n].get("order", ""), n))))
    return _pack(blocks)


def _grid(
    nodes: list[str], *, column: float = 240.0, row: float = 70.0
) -> tuple[dict[str, np.ndarray], float]:
    """Isolated nodes in rows wide enough for their names, about as wide as tall."""
    cols = max(1, round(math.sqrt(len(nodes) * row / column)))
    rows = math.ceil(len(nodes) / cols)
    out = {}
    for i, node in enumerate(nodes):
        r, c = divmod(i, cols)
        out[node] = np.array([(c - (cols - 1) / 2) * column, (r - (rows - 1) / 2) * row])
    return out, math.hypot(cols * column, rows * row) / 2


def _communities_block(
    h: nx.Graph, groups: list[set[str]], *, seed: int, spacing: float
) -> tuple[dict[str, np.ndarray], float]:
    """One large component, community by community (see :func:`layout`)."""
    groups = sorted(groups, key=lambda c: (-len(c), min(c)))
    if len(groups) > 200:
        # Hundreds of tiny communities: keep the big ones, pool the rest.
        groups = groups[:199] + [set().union(*groups[199:])]
    member = {node: i for i, c in enumerate(groups) for node in c}
    q = nx.Graph()
    q.add_nodes_from(range(len(groups)))
    for u, v in h.edges():
        a, b = member[u], member[v]
        if a != b:
            q.add_edge(a, b, weight=q[a][b]["weight"] + 1 if q.has_edge(a, b) else 1)
    pieces = [_piece(_induced(h, c), seed=seed) for c in groups]
    radii = np.array([r * spacing for _pos, r in pieces])
    centres = nx.spring_layout(q, seed=seed, iterations=100, weight="weight")
    pts = np.array([centres[i] for i in range(len(groups))], dtype=float)
    pts -= pts.mean(axis=0)
    reach = float(np.sqrt((pts**2).sum(axis=1)).max()) or 1.0
    # Spread the centres over a disk about as large as the communities packed together.
    pts *= 1.15 * float(np.sqrt((radii**2).sum())) / reach
    pts = _separate(pts, radii)
    out: dict[str, np.ndarray] = {}
    for i, (local, _r) in enumerate(pieces):
        for node, p in local.items():
            out[node] = pts[i] + p * spacing
    extent = max(float(np.hypot(*(pts[i]))) + radii[i] for i in range(len(groups)))
    return out, extent


def _pack(blocks: list[tuple[dict[str, np.ndarray], float]]) -> dict[str, tuple[float, float]]:
    """Place blocks (positions around 0, radius) without overlaps, largest in the middle."""
    blocks = sorted(blocks, key=lambda b: -b[1])
    radii = np.array([r for _, r in blocks], dtype=float)
    if len(blocks) == 1:
        centres = np.zeros((1, 2))
    else:
        centres = _sunflower(len(blocks)) * 1.1 * float(np.sqrt((radii**2).sum()))
        centres -= centres[0]
        centres = _separate(centres, radii)
    out: dict[str, tuple[float, float]] = {}
    for (pos, _r), c in zip(blocks, centres):
        for node, p in pos.items():
            out[node] = (round(float(c[0] + p[0]), 1), round(float(c[1] + p[1]), 1))
    return out


def _separate(pts: np.ndarray, radii: np.ndarray, *, iterations: int = 200) -> np.ndarray:
    """Push disks apart until none overlap (or ``iterations`` run out)."""
    pts = pts.copy()
    if len(pts) < 2:
        return pts
    rng = np.random.default_rng(0)
    need = radii[:, None] + radii[None, :] + 10.0
    np.fill_diagonal(need, 0.0)
    for _ in range(iterations):
        diff = pts[:, None, :] - pts[None, :, :]
        dist = np.sqrt((diff**2).sum(axis=2))
        overlap = need - dist
        np.fill_diagonal(overlap, 0.0)
        if (overlap <= 0.5).all():
            break
        same = dist < 1e-6
        np.fill_diagonal(same, False)
        if same.any():
            pts += rng.normal(scale=1.0, size=pts.shape) * same.any(axis=1)[:, None]
            continue
        np.fill_diagonal(dist, 1.0)
        push = np.clip(overlap, 0.0, None) / dist / 2
        pts += (diff * push[:, :, None]).sum(axis=1)
    return pts
