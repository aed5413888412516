"""Push a kg graph into Neo4j: schema first, then batched ``UNWIND $rows ... MERGE``.

Three steps (docs/architecture.md): :func:`to_rows` turns the graph into plain row dicts (pure, no
driver), :func:`push` sends them in batches through managed transactions (nodes before
relationships), and the entities' ``support`` / ``mention_count`` are then recomputed in Cypher
from what the database holds, so loading a second corpus updates them. Every statement is a
``MERGE`` on ``id``, so a push can be repeated, or re-run after a failure, without duplicates.

How properties Neo4j cannot store are written:

- a paper's ``mentions`` (``[start, end, label, entity id]`` lists) is one JSON string;
- an edge's ``evidence`` (a list of dicts) becomes ``evidence``, a list of JSON strings (one per
  item, ``apoc.convert.fromJsonMap`` or any client reads them), with ``sentences`` (the sentence of
  each item, same order) and ``evidence_count``; entity -> entity edges add ``evidence_papers`` (the
  paper of each item) so evidence can be merged and removed per paper;
- ``None`` values are left out; any other dict, or a list mixing types, becomes a JSON string.

All Cypher lives in :mod:`graph_exports.cypher`.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import networkx as nx

from kg.errors import ExportError, Neo4jError
from kg.graph import KnowledgeGraph
from kg.schema import NODE_LABELS, PAPER_PREFIX, RELATION_TYPES, RESULT_LABEL, as_nx

from . import cypher

__all__ = [
    "PushStats",
    "RemoveStats",
    "to_rows",
    "node_statements",
    "relationship_statements",
    "push",
    "remove_paper",
    "open_driver",
    "batched",
    "neo4j_value",
]

T = TypeVar("T")
RelKey = tuple[str, str, str]  # (type, start label, end label)

#: Longest node id pushed: a Neo4j range index key (behind the id constraints) holds 8,167 bytes.
MAX_ID_BYTES = 8_000
#: URI schemes of the Bolt protocol (the driver's http:// support needs extra packages kg does not use).
BOLT_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


@dataclass
class PushStats:
    """What a push did.

    Attributes:
        nodes: rows sent per label.
        relationships: rows sent per relationship type.
        batches: transactions run for nodes and relationships.
        nodes_created, relationships_created, relationships_deleted, properties_set: the server's counters.
        seconds: wall time of the whole push; ``node_seconds`` / ``relationship_seconds`` of each phase.
    """

    nodes: dict[str, int] = field(default_factory=dict)
    relationships: dict[str, int] = field(default_factory=dict)
    batches: int = 0
    nodes_created: int = 0
    relationships_created: int = 0
    relationships_deleted: int = 0
    entities_deleted: int = 0
    properties_set: int = 0
    seconds: float = 0.0
    node_seconds: float = 0.0
    relationship_seconds: float = 0.0

    @property
    def node_count(self) -> int:
        return sum(self.nodes.values())

    @property
    def relationship_count(self) -> int:
        return sum(self.relationships.values())

    @property
    def relationships_per_second(self) -> float:
        return (
            self.relationship_count / self.relationship_seconds
            if self.relationship_seconds
            else 0.0
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": dict(self.nodes),
            "relationships": dict(self.relationships),
            "batches": self.batches,
            "nodes_created": self.nodes_created,
            "relationships_created": self.relationships_created,
            "relationships_deleted": self.relationships_deleted,
            "entities_deleted": self.entities_deleted,
            "properties_set": self.properties_set,
            "seconds": round(self.seconds, 3),
            "relationships_per_second": round(self.relationships_per_second, 1),
        }


@dataclass
class RemoveStats:
    """What :func:`remove_paper` deleted (``papers`` is 0 when the paper was not there)."""

    papers: int = 0
    entities: int = 0
    relationships: int = 0


# -- pure part ------------------------------------------------------------------------------------


def batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Split ``items`` into lists of ``size`` (the last one shorter).

    >>> list(batched(range(5), 2))
    [[0, 1], [2, 3], [4]]
    """
    if size < 1:
        raise ValueError(f"batch size must be at least 1, got {size}")
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def neo4j_value(value: Any) -> Any:
    """A value Neo4j can store as a property, or ``None`` to leave the property out.

    Scalars pass; homogeneous lists of scalars pass; anything else is written as JSON.

    >>> neo4j_value([1, 2]), neo4j_value([[0, 4, "METHOD", "method:x"]]), neo4j_value(None)
    ([1, 2], '[[0, 4, "METHOD", "method:x"]]', None)
    """
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value) if isinstance(value, (set, frozenset)) else list(value)
        kinds = {
            bool if isinstance(v, bool) else (float if isinstance(v, (int, float)) else type(v))
            for v in items
        }
        if not items or (len(kinds) == 1 and kinds <= {str, bool, float} and None not in items):
            return items
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _paper_key(paper: str) -> str:
    """Node id of a paper id as the graph stores it on edges and evidence (always its own id, so a
    paper whose id is ``paper:x`` is ``paper:paper:x``)."""
    return PAPER_PREFIX + paper


def _props(attrs: dict[str, Any], skip: Iterable[str] = ()) -> dict[str, Any]:
    skipped = set(skip)
    out = {}
    for name, value in attrs.items():
        if name in skipped:
            continue
        stored = neo4j_value(value)
        if stored is not None:
            out[name] = stored
    return out


def _evidence_props(evidence: list[dict[str, Any]] | None) -> dict[str, Any]:
    items = list(evidence or [])
    return {
        "evidence": [json.dumps(item, ensure_ascii=False, sort_keys=True) for item in items],
        "sentences": [str(item.get("sentence", "")) for item in items],
        "evidence_count": len(items),
    }


def to_rows(
    graph: KnowledgeGraph | nx.MultiDiGraph,
) -> tuple[dict[str, list[dict]], dict[RelKey, list[dict]]]:
    """The rows :func:`push` sends, without a database.

    Returns:
        ``(nodes, relationships)``: ``nodes`` maps each label to rows ``{"id", "props"}`` (entities
        also ``"aliases"``); ``relationships`` maps ``(type, start label, end label)`` to rows
        ``{"start", "end", "props"}`` (entity -> entity rows also ``"papers"``, ``"evidence"``,
        ``"evidence_papers"`` and ``"sentences"``, which are merged rather than replaced). Rows are
        sorted by id, so the same graph always gives the same rows.

    Raises:
        ExportError: a node label or relationship type is not in the schema, or a node id is
            longer than Neo4j can index.
    """
    G = as_nx(graph, ExportError)
    nodes: dict[str, list[dict]] = defaultdict(list)
    labels: dict[str, str] = {}
    for node_id, attrs in sorted(G.nodes(data=True), key=lambda item: str(item[0])):
        label = attrs.get("label")
        if label not in NODE_LABELS and label != RESULT_LABEL:
            raise ExportError(
                f"node {node_id!r}: label {label!r} is not in the schema "
                f"({', '.join((*NODE_LABELS, RESULT_LABEL))})"
            )
        node_id = str(node_id)
        if len(node_id.encode("utf-8", "surrogatepass")) > MAX_ID_BYTES:
            raise ExportError(
                f"node {node_id[:60]!r}...: id is {len(node_id.encode('utf-8', 'surrogatepass')):,} "
                f"bytes, over the {MAX_ID_BYTES:,} a Neo4j index key holds; nothing was sent "
                "(kg build keeps ids within its limits: rebuild the graph)"
            )
        labels[node_id] = label
        if label in ("Paper", RESULT_LABEL):
            props = _props(attrs, skip=("label", "id"))
            props["id"] = node_id
            nodes[label].append({"id": node_id, "props": props})
        else:
            props = _props(attrs, skip=("label", "id", "aliases", "support", "mention_count"))
            aliases = sorted({str(a) for a in attrs.get("aliases") or ()})
            nodes[label].append({"id": node_id, "props": props, "aliases": aliases})

    rels: dict[RelKey, list[dict]] = defaultdict(list)
    for u, v, key, attrs in G.edges(keys=True, data=True):
        rel_type = attrs.get("type", key)
        if rel_type not in RELATION_TYPES:
            raise ExportError(
                f"edge {u!r} -> {v!r}: type {rel_type!r} is not in the schema ({', '.join(RELATION_TYPES)})"
            )
        start, end = str(u), str(v)
        group = (rel_type, labels[start], labels[end])
        evidence = attrs.get("evidence")
        plain = {"Paper", RESULT_LABEL}
        if labels[start] not in plain and labels[end] not in plain:
            props = _props(
                attrs,
                skip=(
                    "type",
                    "evidence",
                    "papers",
                    "support",
                    "count",
                    "weight",
                    "paper_counts",
                    "paper_weights",
                ),
            )
            ev = _evidence_props(evidence)
            items = sorted(
                zip(
                    [_paper_key(str(e.get("paper_id", ""))) for e in evidence or ()],
                    ev["evidence"],
                    ev["sentences"],
                )
            )  # the order the database keeps
            shares = _paper_shares(attrs)
            rels[group].append(
                {
                    "start": start,
                    "end": end,
                    "props": props,
                    "papers": list(shares),
                    "paper_counts": [c for c, _ in shares.values()],
                    "paper_weights": [w for _, w in shares.values()],
                    "evidence_papers": [i[0] for i in items],
                    "evidence": [i[1] for i in items],
                    "sentences": [i[2] for i in items],
                }
            )
        else:
            props = _props(attrs, skip=("type", "evidence", "papers", "support"))
            if evidence is not None:
                props.update(_evidence_props(evidence))
            if labels[end] not in plain and G.nodes[v].get("name") is not None:
                props["entity_name"] = str(
                    G.nodes[v]["name"]
                )  # this graph's vote for the entity's name
            rels[group].append({"start": start, "end": end, "props": props})
    for rows in rels.values():
        rows.sort(key=lambda row: (row["start"], row["end"]))
    return dict(nodes), dict(sorted(rels.items()))


def _paper_shares(attrs: dict[str, Any]) -> dict[str, tuple[int, float]]:
    """Each supporting paper's ``(count, weight)`` of an entity -> entity edge, by node id, sorted.

    kg graphs say it per paper (``paper_counts``, ``paper_weights``); for a graph that does not, the
    edge's count goes to its first paper and every paper gets the edge's weight.
    """
    papers = [str(p) for p in attrs.get("papers") or ()]
    papers += [
        str(e["paper_id"])
        for e in attrs.get("evidence") or ()
        if e.get("paper_id") and str(e["paper_id"]) not in papers
    ]
    counts, weights = attrs.get("paper_counts"), attrs.get("paper_weights")
    weight = float(attrs.get("weight") or 0.0)
    if not (
        isinstance(counts, list)
        and isinstance(weights, list)
        and len(counts) == len(weights) == len(attrs.get("papers") or ())
    ):
        ordered = sorted(papers)
        counts = (
            [int(attrs.get("count") or 1) if p == ordered[0] else 0 for p in papers]
            if papers
            else []
        )
        weights = [weight] * len(papers)
    else:
        counts = list(counts) + [0] * (len(papers) - len(counts))
        weights = list(weights) + [weight] * (len(papers) - len(weights))
    shares: dict[str, tuple[int, float]] = {}
    for paper, count, w in zip(papers, counts, weights):
        key = _paper_key(paper)
        old = shares.get(key, (0, 0.0))
        shares[key] = (old[0] + int(count), max(old[1], float(w)))
    return dict(sorted(shares.items()))


def _prune_rows(graph: nx.MultiDiGraph) -> list[dict]:
    """Per paper, the ``TYPE|target`` pairs its graph has; the database's other ones go."""
    keep: dict[str, list[str]] = {}
    for node_id, attrs in graph.nodes(data=True):
        if attrs.get("label") == "Paper":
            keep[str(node_id)] = sorted(
                f"{attrs.get('type', k)}|{v}"
                for _, v, k, attrs in graph.out_edges(node_id, keys=True, data=True)
            )
    return [{"id": pid, "keep": keep[pid]} for pid in sorted(keep)]


def node_statements(node_rows: dict[str, list[dict]]) -> list[tuple[str, list[dict]]]:
    """``(query, rows)`` per label, in the order a push runs them (each query takes ``$rows``)."""

    def query(label: str) -> str:
        if label == "Paper":
            return cypher.merge_paper_nodes()
        if label == RESULT_LABEL:
            return cypher.MERGE_RESULT_NODES
        return cypher.merge_entity_nodes(label)

    return [
        (query(label), node_rows[label])
        for label in (*NODE_LABELS, RESULT_LABEL)
        if node_rows.get(label)
    ]


def relationship_statements(rel_rows: dict[RelKey, list[dict]]) -> list[tuple[str, list[dict]]]:
    """``(query, rows)`` per relationship type and end labels, in push order."""
    out = []
    for (rel_type, start_label, end_label), rows in rel_rows.items():
        plain = {"Paper", RESULT_LABEL}
        entity_edge = start_label not in plain and end_label not in plain
        build = cypher.merge_entity_relationships if entity_edge else cypher.merge_relationships
        out.append((build(rel_type, start_label, end_label), rows))
    return out


# -- database part --------------------------------------------------------------------------------


def _where(driver) -> str:
    # the driver keeps its initial address privately; it is only used to word the message
    address = getattr(driver, "_address", None) or getattr(
        getattr(driver, "_pool", None), "address", None
    )
    return f"Neo4j at {address}" if address else "Neo4j"


def _translate(exc: Exception, driver, database: str | None, during: str) -> Neo4jError:
    """One line naming the failure and what to do."""
    import neo4j.exceptions as ne

    where = _where(driver)
    db = database or "the default database"
    if isinstance(exc, ne.AuthError):
        return Neo4jError(
            f"{where} refused the user name or password; check --user/--password "
            "(NEO4J_USERNAME/NEO4J_PASSWORD)"
        )
    code = getattr(exc, "code", "") or ""
    if code == "Neo.ClientError.Database.DatabaseNotFound" or "DatabaseNotFound" in code:
        return Neo4jError(
            f"{where} has no database {db!r}; pass an existing one with --database "
            "(NEO4J_DATABASE), e.g. 'neo4j' (Community has only that one)"
        )
    if isinstance(
        exc, (ne.ServiceUnavailable, ne.SessionExpired, ne.IncompleteCommit)
    ) or isinstance(exc, OSError):
        if during == "connect":
            return Neo4jError(
                f"cannot reach {where}: is the server running? start it (docker/neo4j.sh start, "
                "or docker compose -f docker/compose.yml up -d neo4j) or check --uri (NEO4J_URI)"
            )
        return Neo4jError(
            f"lost the connection to {where} {during}; start the server again and re-run the "
            "same command: the load is idempotent, nothing will be duplicated"
        )
    if isinstance(exc, ne.Neo4jError):
        message = (getattr(exc, "message", None) or str(exc)).splitlines()[0]
        return Neo4jError(
            f"{where} rejected the statement {during}: {code or type(exc).__name__}: {message}"
        )
    return Neo4jError(
        f"{where} failed {during}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    )


def _run(
    driver,
    query: str,
    params: dict[str, Any],
    database: str | None,
    stats: PushStats | None,
    during: str,
):
    import neo4j.exceptions as ne

    try:
        records, summary, _ = driver.execute_query(query, parameters_=params, database_=database)
    except (ne.Neo4jError, ne.DriverError, OSError) as exc:
        raise _translate(exc, driver, database, during) from exc
    if stats is not None:
        counters = summary.counters
        stats.batches += 1
        stats.nodes_created += counters.nodes_created
        stats.relationships_created += counters.relationships_created
        stats.relationships_deleted += counters.relationships_deleted
        stats.properties_set += counters.properties_set
    return records


def check_connection(driver, database: str | None = None) -> None:
    """Fail early, with one line, on an unreachable server, bad credentials or a missing database."""
    import neo4j.exceptions as ne

    try:
        driver.verify_connectivity()
    except (ne.Neo4jError, ne.DriverError, OSError) as exc:
        raise _translate(exc, driver, database, "connect") from exc
    _run(driver, "RETURN 1", {}, database, None, "connect")


def push(
    graph: KnowledgeGraph | nx.MultiDiGraph,
    driver,
    *,
    database: str | None = None,
    batch_size: int = 1000,
) -> PushStats:
    """Load ``graph`` into Neo4j; safe to repeat and to re-run after a failure.

    Args:
        graph: a :class:`~kg.graph.KnowledgeGraph` or its ``networkx.MultiDiGraph``.
        driver: an open ``neo4j.Driver`` (the caller opens and closes it).
        database: the database to write to; ``None`` is the server's default.
        batch_size: rows per transaction (``1`` is the row-by-row load the benchmark compares with).

    Returns:
        PushStats: rows sent per label and type, batches, the server's counters, timings.

    Raises:
        Neo4jError: the server cannot be reached, refuses the credentials, has no such database,
            or goes away during the push (the message says which, and what to do).
        ExportError: the graph has a label or type outside the schema.
    """
    G = as_nx(graph, ExportError)
    node_rows, rel_rows = to_rows(G)
    stats = PushStats(
        nodes={label: len(rows) for label, rows in node_rows.items()}, relationships={}
    )
    for (rel_type, _, _), rows in rel_rows.items():
        stats.relationships[rel_type] = stats.relationships.get(rel_type, 0) + len(rows)
    t0 = time.perf_counter()
    check_connection(driver, database)
    for statement in cypher.schema_statements():
        _run(driver, statement, {}, database, None, "while creating the schema")

    done = 0
    total = sum(len(rows) for rows in node_rows.values()) + sum(
        len(rows) for rows in rel_rows.values()
    )

    def progress() -> str:
        return f"during the push (after {done:,} of {total:,} rows)"

    for query, rows in node_statements(node_rows):
        for batch in batched(rows, batch_size):
            _run(driver, query, {"rows": batch}, database, stats, progress())
            done += len(batch)
    t1 = time.perf_counter()
    for query, rows in relationship_statements(rel_rows):
        for batch in batched(rows, batch_size):
            _run(driver, query, {"rows": batch}, database, stats, progress())
            done += len(batch)
    t2 = time.perf_counter()

    # A re-pushed paper drops the edges its new graph no longer has; then support is recomputed.
    touched = {row["id"] for label, rows in node_rows.items() if label != "Paper" for row in rows}
    dropped: set[str] = set()
    for batch in batched(_prune_rows(G), max(batch_size, 1000)):
        for record in _run(
            driver, cypher.PRUNE_PAPER_EDGES, {"rows": batch}, database, stats, progress()
        ):
            dropped.update(record["targets"])
    for result_ids in batched(sorted(dropped), max(batch_size, 1000)):
        _run(driver, cypher.DELETE_ORPHAN_RESULTS, {"ids": result_ids}, database, stats, progress())
    ids = sorted(touched | dropped)
    for id_batch in batched(ids, max(batch_size, 1000)):
        _run(
            driver, cypher.RECOMPUTE_ENTITY_SUPPORT, {"ids": id_batch}, database, stats, progress()
        )
    for id_batch in batched(sorted(dropped - touched), max(batch_size, 1000)):
        for record in _run(
            driver, cypher.DELETE_ORPHAN_ENTITIES, {"ids": id_batch}, database, stats, progress()
        ):
            stats.entities_deleted += record["deleted"]
    stats.node_seconds = t1 - t0
    stats.relationship_seconds = t2 - t1
    stats.seconds = time.perf_counter() - t0
    return stats


def remove_paper(driver, paper_id: str, *, database: str | None = None) -> RemoveStats:
    """Remove a paper, its relationships, its Result nodes, and the entities and entity -> entity relationships that
    only it supported; other entities' ``support`` is recomputed. One transaction: all or nothing.

    Args:
        paper_id: the paper's id, or its node id (``paper:`` and the id). The paper's own id wins:
            ``paper:x`` is the paper whose id is ``paper:x`` when there is one, else the paper ``x``.
    """
    candidates = [_paper_key(paper_id)] + ([paper_id] if paper_id.startswith(PAPER_PREFIX) else [])
    node_id = candidates[0]

    def work(tx) -> RemoveStats:
        nonlocal node_id
        found = set(tx.run(cypher.FIND_PAPERS, ids=candidates).single()["ids"])
        node_id = next((c for c in candidates if c in found), candidates[0])
        keys = [node_id]
        ids = tx.run(cypher.REMOVE_PAPER[0], paper=node_id).single()["ids"]
        rels = tx.run(cypher.REMOVE_PAPER[1], ids=ids, paper_keys=keys).single()["deleted"]
        tx.run(cypher.REMOVE_PAPER_RESULTS, paper=node_id).consume()
        papers = tx.run(cypher.REMOVE_PAPER[2], paper=node_id).single()["deleted"]
        tx.run(cypher.RECOMPUTE_ENTITY_SUPPORT, ids=ids).consume()
        entities = tx.run(cypher.DELETE_ORPHAN_ENTITIES, ids=ids).single()["deleted"]
        return RemoveStats(papers=papers, entities=entities, relationships=rels)

    import neo4j.exceptions as ne

    check_connection(driver, database)
    try:
        with driver.session(database=database) as session:
            return session.execute_write(work)
    except (ne.Neo4jError, ne.DriverError, OSError) as exc:
        raise _translate(exc, driver, database, f"while removing {node_id}") from exc


def open_driver(uri: str, user: str | None = None, password: str | None = None, **config: Any):
    """A driver for ``uri`` (``bolt://`` or ``neo4j://``), with basic auth when a password is given.

    The caller closes it (``with open_driver(...) as driver``).
    """
    import neo4j
    import neo4j.exceptions as ne

    scheme = uri.partition("://")[0].lower() if "://" in uri else ""
    if scheme not in BOLT_SCHEMES:
        raise Neo4jError(
            f"bad Neo4j URI {uri!r}: kg talks Bolt, so the URI starts with "
            f"{', '.join(s + '://' for s in BOLT_SCHEMES)}; e.g. bolt://127.0.0.1:7687 "
            "(the Bolt port, not the browser's http port 7474)"
        )
    auth = (user or "neo4j", password) if password else None
    try:
        return neo4j.GraphDatabase.driver(uri, auth=auth, **config)
    except (ValueError, ne.ConfigurationError) as exc:
        raise Neo4jError(
            f"bad Neo4j URI {uri!r}: {exc}; expected e.g. bolt://127.0.0.1:7687"
        ) from exc
