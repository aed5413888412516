"""The page's data, stored once and compactly: what vis-network draws, and a store for the panels.

:func:`pack` turns the node and edge records of :mod:`graph_exports.html` (``page_nodes``,
``page_edges``) into

* ``vis_nodes``: one small record per node for pyvis/vis-network: ``id``, ``label`` (the short
  name the page draws), ``shape``, ``color`` (the label colour), ``size``, ``x``, ``y``;
* ``store``: everything else, in arrays aligned with ``vis_nodes``, where a node is referred to by
  its index and each repeated string (labels, edge types, venues, extractors, source files) is kept
  once in a table. Evidence is stored as offsets into the paper's abstract (the sentence and the
  evidence text are cut out of it in the page), never as repeated sentences; an entity's papers
  are not stored at all (the page reads them off the edges).

The page (``assets/kg_page.js``, ``unpack``) rebuilds the records :func:`unpack` rebuilds here,
so tests read a page through :func:`unpack` and see the records ``page_nodes``/``page_edges``
made (minus the lists the page derives).

Store layout (``v`` 1)::

    kinds, types, strings          tables (node labels, edge types, other repeated strings)
    kind[i], name[i], deg[i], sup[i], comm[i]       per node (name null when it equals label)
    yr[i]                          per node: a paper's year, an entity's mean year of its papers, or null
    papers: [[i, title, derived, year, venue, authors, keywords, abstract, mentions, source, results]]
        (title 1: the same as the name; null: none given)
        results: [[value start, value end, sentence start, sentence end, name, method, baseline]]
            (offsets into the abstract; method and baseline "" when unknown)
        mentions flat: s, e, label (string index), entity (node index, or -1-k for ext[k])
    entities: [[i, aliases, support, mentionCount, papersTotal]]   (aliases null: [name])
    ext: [id, name or null] of entities not on the page that mentions or shared lists name
    edges: from, to, type, weight, count, ev, evTotal, rel
        ev[j]: null or [[paper node index, s, e, sentence start, sentence end, extractor, score]]
            (s = e = -1 when the evidence has no span; a sentence not found in the abstract is
            stored as its text in place of the two sentence offsets: [p, s, e, "text", x, score])
        rel[j]: null, or [shared entity refs, sharedTotal, sharedTerms (string indices)] for RELATED_TO
"""

from __future__ import annotations

from typing import Any

from kg.schema import is_paper_node, paper_id_of, paper_node_id

__all__ = [
    "pack",
    "unpack",
    "derive",
    "compress_if_large",
    "decompress",
    "split_details",
    "merge_details",
    "STORE_VERSION",
    "COMPRESS_ABOVE",
]

STORE_VERSION = 1
#: Pages whose data is larger than this (bytes of JSON) carry it gzip'd in base64
#: (``{"gz": ...}`` in place of the store, no pyvis nodes); the page inflates it with the
#: browser's DecompressionStream. Smaller pages stay plain JSON, readable in the file. In the page the base64 sits in a script
#: element of type application/octet-stream, which the browser never parses as JavaScript.
COMPRESS_ABOVE = 500_000

_PAPER_KEYS = (
    "paperTitle",
    "titleDerived",
    "year",
    "venue",
    "authors",
    "keywords",
    "abstract",
    "mentions",
    "source",
    "results",
)


class _Table:
    """Strings kept once: ``index(s)`` gives the same number for the same string."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._at: dict[str, int] = {}

    def index(self, value: Any) -> int:
        key = "" if value is None else str(value)
        if key not in self._at:
            self._at[key] = len(self.items)
            self.items.append(key)
        return self._at[key]


def _sentence_at(abstract: str, sentence: str, near: int) -> tuple[int, int] | None:
    """Offsets of ``sentence`` in ``abstract`` (the occurrence nearest ``near``), or ``None``."""
    if not sentence:
        return None
    best = None
    at = abstract.find(sentence)
    while at >= 0:
        if best is None or abs(at - near) < abs(best - near):
            best = at
        at = abstract.find(sentence, at + 1)
    return None if best is None else (best, best + len(sentence))


def pack(
    nodes: list[dict[str, Any]], edges: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(vis_nodes, store)`` for the page; see the module docstring."""
    index = {n["id"]: i for i, n in enumerate(nodes)}
    kinds, types, strings = _Table(), _Table(), _Table()
    ext: dict[str, int] = {}
    ext_names: list[str | None] = []

    def ref(entity_id: Any, name: str | None = None) -> int:
        eid = str(entity_id)
        if eid in index:
            return index[eid]
        if eid not in ext:
            ext[eid] = len(ext)
            ext_names.append(None)
        if name and ext_names[ext[eid]] is None:
            ext_names[ext[eid]] = name
        return -1 - ext[eid]

    vis_nodes, kind, name, deg, sup, comm, yr = [], [], [], [], [], [], []
    papers, entities = [], []
    abstracts: dict[str, str] = {}
    for i, n in enumerate(nodes):
        vis_nodes.append(
            {
                "id": n["id"],
                "label": n["label"],
                "shape": n["shape"],
                "color": n["lc"],
                "size": round(n["size"], 1),
                "x": round(n["x"]),
                "y": round(n["y"]),
            }
        )
        kind.append(kinds.index(n["kind"]))
        name.append(None if n["name"] == n["label"] else n["name"])
        deg.append(n["deg"])
        sup.append(n["sup"])
        comm.append(n["comm"])
        yr.append(n.get("yr"))
        if n["kind"] == "Paper":
            abstract = n.get("abstract") or ""
            abstracts[n["id"]] = abstract
            flat: list[int] = []
            for m in n.get("mentions") or []:
                if not (isinstance(m, (list, tuple)) and len(m) >= 3):
                    continue
                entity = ref(m[3] if len(m) > 3 and m[3] else "")
                flat += [int(m[0]), int(m[1]), strings.index(str(m[2])), entity]
            papers.append(
                [
                    i,
                    1 if n.get("paperTitle") == n["name"] else n.get("paperTitle"),
                    1 if n.get("titleDerived") else 0,
                    n.get("year"),
                    strings.index(n.get("venue")) if n.get("venue") else -1,
                    n.get("authors") or [],
                    n.get("keywords") or [],
                    abstract,
                    flat,
                    n.get("source"),
                    [list(r) for r in n.get("results") or []],
                ]
            )
        else:
            aliases = n.get("aliases") or []
            entities.append(
                [
                    i,
                    None if aliases == [n["name"]] else aliases,
                    n.get("support", 0),
                    n.get("mentionCount"),
                    n.get("papersTotal", 0),
                ]
            )

    e_from, e_to, e_type, e_weight, e_count, e_ev, e_total = [], [], [], [], [], [], []
    e_rel: list[list[Any] | None] = []
    for e in edges:
        e_from.append(index[e["from"]])
        e_to.append(index[e["to"]])
        e_type.append(types.index(e["type"]))
        e_weight.append(e["weight"])
        e_count.append(e.get("count"))
        packed = []
        for ev in e.get("evidence") or []:
            pid = str(ev.get("paper_id") or "")
            pid = pid if is_paper_node(pid) else paper_node_id(pid)
            s = ev.get("start")
            t = ev.get("end")
            s = int(s) if isinstance(s, int) else -1
            t = int(t) if isinstance(t, int) else -1
            where = (
                _sentence_at(abstracts.get(pid, ""), str(ev.get("sentence") or ""), s)
                if pid in index
                else None
            )
            row: list[Any] = [index.get(pid, -1), s, t]
            row += list(where) if where else [str(ev.get("sentence") or "")]
            row += [strings.index(ev.get("extractor")), ev.get("score")]
            packed.append(row)
        e_ev.append(packed or None)
        e_total.append(e.get("evidenceTotal", 0))
        if e["type"] == "RELATED_TO":
            e_rel.append(
                [
                    [ref(s, name) for s, name in e.get("shared") or []],
                    e.get("sharedTotal", 0),
                    [strings.index(t) for t in e.get("sharedTerms") or []],
                ]
            )
        else:
            e_rel.append(None)

    store = {
        "v": STORE_VERSION,
        "kinds": kinds.items,
        "types": types.items,
        "strings": strings.items,
        "kind": kind,
        "name": name,
        "deg": deg,
        "sup": sup,
        "comm": comm,
        "yr": yr,
        "papers": papers,
        "entities": entities,
        "ext": [[eid, ext_names[k]] for eid, k in ext.items()],
        "edges": {
            "from": e_from,
            "to": e_to,
            "type": e_type,
            "weight": e_weight,
            "count": e_count,
            "ev": e_ev,
            "evTotal": e_total,
            "rel": e_rel,
        },
    }
    return vis_nodes, store


def unpack(
    vis_nodes: list[dict[str, Any]], store: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The node and edge records the page rebuilds from ``vis_nodes`` and ``store``.

    Nodes carry ``id``, ``label``, ``shape``, ``size``, ``x``, ``y``, ``kind``, ``name``, ``deg``,
    ``sup``, ``comm``, ``lc``, and the paper or entity fields (no entity ``papers`` list);
    edges carry ``id``, ``from``, ``to``, ``type``, ``weight``, ``count``, ``evidence``
    (``{sentence, start, end, text, extractor, score, paper_id}``, ``start``/``end``/``text``
    only where the evidence has a span), ``evidenceTotal`` and, for RELATED_TO, ``shared``
    (``[id, name]``), ``sharedTotal``, ``sharedTerms``.
    """
    kinds, types, strings, ext = store["kinds"], store["types"], store["strings"], store["ext"]
    nodes = []
    for i, v in enumerate(vis_nodes):
        nodes.append(
            {
                "id": v["id"],
                "label": v["label"],
                "shape": v["shape"],
                "size": v["size"],
                "x": v["x"],
                "y": v["y"],
                "lc": v["color"],
                "kind": kinds[store["kind"][i]],
                "name": store["name"][i] if store["name"][i] is not None else v["label"],
                "deg": store["deg"][i],
                "sup": store["sup"][i],
                "comm": store["comm"][i],
                "yr": (store.get("yr") or [None] * len(vis_nodes))[i],
            }
        )

    def entity_id(r: int) -> str:
        return nodes[r]["id"] if r >= 0 else ext[-1 - r][0]

    def entity_name(r: int) -> str:
        return nodes[r]["name"] if r >= 0 else ext[-1 - r][1] or ext[-1 - r][0]

    for p in store["papers"]:
        n = nodes[p[0]]
        flat = p[8]
        mentions = []
        for j in range(0, len(flat), 4):
            eid = entity_id(flat[j + 3])
            mentions.append([flat[j], flat[j + 1], strings[flat[j + 2]], *([eid] if eid else [])])
        n.update(
            paperTitle=n["name"] if p[1] == 1 else p[1],
            titleDerived=bool(p[2]),
            year=p[3],
            venue=strings[p[4]] if p[4] >= 0 else None,
            authors=p[5],
            keywords=p[6],
            abstract=p[7],
            mentions=mentions,
            source=p[9],
            results=p[10] if len(p) > 10 else [],
        )
    for ent in store["entities"]:
        n = nodes[ent[0]]
        n.update(
            aliases=ent[1] if ent[1] is not None else [n["name"]],
            support=ent[2],
            mentionCount=ent[3],
            papersTotal=ent[4],
        )

    es = store["edges"]
    edges = []
    for j in range(len(es["from"])):
        rec: dict[str, Any] = {
            "id": f"e{j}",
            "from": nodes[es["from"][j]]["id"],
            "to": nodes[es["to"][j]]["id"],
            "type": types[es["type"][j]],
            "weight": es["weight"][j],
            "count": es["count"][j],
            "evidenceTotal": es["evTotal"][j],
            "evidence": [],
        }
        for row in es["ev"][j] or []:
            paper = nodes[row[0]] if row[0] >= 0 else None
            cps = (paper or {}).get("abstract") or ""
            if isinstance(row[3], str):
                sentence, rest = row[3], row[4:]
            else:
                sentence, rest = cps[row[3] : row[4]], row[5:]
            ev: dict[str, Any] = {
                "sentence": sentence,
                "extractor": strings[rest[0]],
                "score": rest[1],
                "paper_id": paper_id_of(paper["id"]) if paper else None,
            }
            if row[1] >= 0:
                ev.update(start=row[1], end=row[2], text=cps[row[1] : row[2]])
            rec["evidence"].append(ev)
        rel = es["rel"][j]
        if rel is not None:
            rec["shared"] = [[entity_id(r), entity_name(r)] for r in rel[0]]
            rec["sharedTotal"] = rel[1]
            rec["sharedTerms"] = [strings[t] for t in rel[2]]
        edges.append(rec)
    return nodes, edges


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def derive(nodes: list[dict[str, Any]], edges: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    """Add in place what the page derives instead of storing: a node's community colour ``cc``,
    an entity's ``papers`` (``[id, name]`` of the papers its edges come from, by id, at most 100),
    and for RELATED_TO edges ``hidden`` (in the knowledge view) and, in the papers view, the
    ``label`` naming what the two papers share (two names, ``+n`` for the rest)."""
    palette = meta.get("communityColors") or []
    by_id = {n["id"]: n for n in nodes}
    papers: dict[str, set[str]] = {}
    for n in nodes:
        c = n.get("comm", -1)
        n["cc"] = palette[c] if 0 <= c < len(palette) else "#b8b8b8"
    for e in edges:
        a, b = by_id[e["from"]], by_id[e["to"]]
        if e["type"] != "RELATED_TO" and a["kind"] == "Paper" and b["kind"] != "Paper":
            papers.setdefault(b["id"], set()).add(a["id"])
        if e["type"] == "RELATED_TO":
            e["hidden"] = meta.get("view") == "knowledge"
            names = [name for _id, name in e.get("shared") or []] or list(
                e.get("sharedTerms") or []
            )
            if meta.get("view") == "papers" and names:
                more = f" +{len(names) - 2}" if len(names) > 2 else ""
                e["label"] = _short(", ".join(names[:2]), 32) + more
    for n in nodes:
        if n["kind"] != "Paper":
            n["papers"] = [[p, by_id[p]["name"]] for p in sorted(papers.get(n["id"], ()))[:100]]


def _gz(obj: Any) -> str:
    import base64
    import gzip
    import json

    raw = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def _ungz(text: str) -> Any:
    import base64
    import gzip
    import json

    return json.loads(gzip.decompress(base64.b64decode(text)).decode("utf-8"))


def split_details(store: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(core, details)``: the store without what only the panels, search and evidence read
    (each paper's authors, keywords, abstract, mentions and source; entity aliases; evidence
    rows), and those, aligned with ``store["papers"]``, ``store["entities"]`` and the edges.
    :func:`merge_details` puts them back."""
    core = dict(store)
    core["papers"] = [p[:5] + [[], [], "", [], None, []] for p in store["papers"]]
    core["entities"] = [[e[0], None, *e[2:]] for e in store["entities"]]
    core["edges"] = dict(store["edges"], ev=[None] * len(store["edges"]["ev"]))
    details = {
        "papers": [p[5:11] for p in store["papers"]],
        "aliases": [e[1] for e in store["entities"]],
        "ev": store["edges"]["ev"],
    }
    return core, details


def merge_details(core: dict[str, Any], details: dict[str, Any]) -> dict[str, Any]:
    """The whole store from :func:`split_details`'s two parts."""
    store = dict(core)
    store["papers"] = [p[:5] + list(d) for p, d in zip(core["papers"], details["papers"])]
    store["entities"] = [[e[0], a, *e[2:]] for e, a in zip(core["entities"], details["aliases"])]
    store["edges"] = dict(core["edges"], ev=details["ev"])
    return store


def compress_if_large(
    vis_nodes: list[dict[str, Any]], store: dict[str, Any], *, above: int | None = None
) -> dict[str, Any] | None:
    """``{"gz": ..., "details": ...}`` (base64 of gzip'd JSON: ``{nodes, store}`` without the
    details, and the details, see :func:`split_details`) when the data is larger than ``above``
    bytes (default ``COMPRESS_ABOVE``), else ``None``. The page draws from the first part and
    inflates the second after its first drawing. Deterministic: the same data gives the same
    bytes (gzip mtime 0)."""
    import json

    size = len(
        json.dumps(
            {"nodes": vis_nodes, "store": store}, ensure_ascii=False, separators=(",", ":")
        ).encode("utf-8")
    )
    if size <= (COMPRESS_ABOVE if above is None else above):
        return None
    core, details = split_details(store)
    return {"gz": _gz({"nodes": vis_nodes, "store": core}), "details": _gz(details)}


def decompress(
    vis_nodes: list[dict[str, Any]], store: dict[str, Any], page: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The ``(vis_nodes, store)`` of a page, inflating a compressed store (see
    :func:`compress_if_large`); a plain one is returned as it is. A page keeps the compressed
    parts in ``<script type="application/octet-stream" id="kg-blob">`` and ``id="kg-details"``
    (``{"gzIn": "kg-blob", "detailsIn": "kg-details"}`` in place of the store): pass the page's
    text as ``page`` to read them from there."""
    if "gzIn" in store:
        import re

        def blob(name: str) -> str:
            match = re.search(
                rf'<script type="application/octet-stream" id="{name}">([^<]*)</script>', page or ""
            )
            if match is None:
                raise ValueError("the page keeps its data in blobs; pass the page's text")
            return match.group(1).strip()

        store = {"gz": blob(store["gzIn"]), "details": blob(store["detailsIn"])}
    if "gz" not in store:
        return vis_nodes, store
    data = _ungz(store["gz"])
    return data["nodes"], merge_details(data["store"], _ungz(store["details"]))
