"""Neo4j load rates for one graph, side by side: batched push, row by row, neo4j-admin import.

    python bench/neo4j_push.py out/graph.json
    python bench/neo4j_push.py --corpus $KG_SHARED_DATA/corpora/iclr2026_submissions.jsonl -n 10000
    python bench/neo4j_push.py big/graph.json --methods admin        # only neo4j-admin (minutes at 80k)

1. batched: ``kg push`` as shipped (``UNWIND $rows ... MERGE``, 1,000 rows a transaction) into an
   empty database; nodes/s and relationships/s of each phase.
2. row by row: the same statements with one row, so one MERGE, per transaction (the naive load),
   relationships only, with the nodes already in place. It is about two orders of magnitude slower,
   so by default it times the first ``--row-sample`` relationships (spread over every type) and
   reports their rate; ``--row-sample 0`` loads them all.
3. neo4j-admin: ``kg export --format neo4j-csv`` files imported into a fresh database of the same
   installation (``docker/neo4j.sh admin``), wall time of the whole command, JVM start included.

Unless ``--uri`` is given, it starts its own throw-away servers with ``docker/neo4j.sh`` (Java 17
needed) and stops them afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NEO4J_SH = ROOT / "docker" / "neo4j.sh"


def _sh(instance: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NEO4J_INSTANCE": str(instance), "NEO4J_AUTH": "none"}
    env.pop("NEO4J_BOLT_PORT", None)
    done = subprocess.run(
        ["bash", str(NEO4J_SH), *args], env=env, capture_output=True, text=True, cwd=instance
    )
    if done.returncode != 0:
        sys.exit(f"docker/neo4j.sh {' '.join(args[:3])} failed:\n{done.stdout}\n{done.stderr}")
    return done


def load_graph(args: argparse.Namespace):
    from kg.graph import KnowledgeGraph

    if args.graph:
        return KnowledgeGraph.load(args.graph)
    import itertools

    from extractors import load_pipeline
    from kg.build import build
    from kg.corpus import read_corpus

    papers = list(itertools.islice(read_corpus([args.corpus]), args.n))
    src = Path(tempfile.mkdtemp(prefix="kg-bench-")) / "abstracts.jsonl"
    with src.open("w", encoding="utf-8") as handle:
        for p in papers:
            handle.write(json.dumps({"id": p.id, "title": p.title, "abstract": p.abstract}) + "\n")
    t = time.perf_counter()
    graph = build([str(src)], load_pipeline()).graph
    print(
        f"built the graph of {len(papers):,} abstracts in {time.perf_counter() - t:.0f} s",
        file=sys.stderr,
    )
    return graph


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph", nargs="?", help="graph.json written by kg build")
    parser.add_argument("--corpus", help="build the graph from this corpus instead")
    parser.add_argument("-n", type=int, default=10_000, help="abstracts to read from --corpus")
    parser.add_argument(
        "--uri", help="use this server (NEO4J_URI) instead of starting one; skips neo4j-admin"
    )
    parser.add_argument("--batch-size", type=int, default=1000)
    parser.add_argument(
        "--row-sample",
        type=int,
        default=5000,
        help="relationships loaded row by row (0: all of them)",
    )
    parser.add_argument(
        "--json", action="store_true", help="also print the figures as one JSON object"
    )
    parser.add_argument(
        "--methods",
        default="batched,rows,admin",
        help="which loads to time, comma-separated (an ~80k-abstract graph: admin alone takes "
        "minutes, batched half an hour)",
    )
    args = parser.parse_args()
    if not args.graph and not args.corpus:
        parser.error("give a graph.json or --corpus")
    methods = set(args.methods.split(","))
    if not methods <= {"batched", "rows", "admin"}:
        parser.error("--methods: batched, rows, admin")

    from graph_exports import neo4j as kg_neo4j
    from graph_exports.neo4j_csv import write_neo4j_csv

    graph = load_graph(args)
    node_rows, rel_rows = kg_neo4j.to_rows(graph)
    n_nodes = sum(map(len, node_rows.values()))
    n_rels = sum(map(len, rel_rows.values()))
    papers = len(node_rows.get("Paper", []))
    print(f"graph: {papers:,} papers, {n_nodes:,} nodes, {n_rels:,} relationships", file=sys.stderr)

    work = Path(tempfile.mkdtemp(prefix="kg-bench-neo4j-"))
    started: list[Path] = []
    uri = args.uri or os.environ.get("NEO4J_URI")
    try:
        results: dict[str, dict] = {}
        if methods & {"batched", "rows"}:
            uri = _push(args, graph, work, started, uri, rel_rows, n_nodes, n_rels, results)
        if "admin" in methods and not args.uri and not os.environ.get("NEO4J_URI"):
            files = write_neo4j_csv(graph, work / "csv")
            fresh = work / "import"
            fresh.mkdir()
            t = time.perf_counter()
            done = _sh(
                fresh,
                "admin",
                "database",
                "import",
                "full",
                f"@{files.directory / 'import.args'}",
                "neo4j",
            )
            seconds = time.perf_counter() - t
            results["neo4j_admin"] = {
                "nodes_per_s": files.node_count / seconds,
                "rels_per_s": files.relationship_count / seconds,
                "seconds": seconds,
                "relationships": files.relationship_count,
                "reported": _import_line(done.stdout + done.stderr),
            }
    finally:
        for instance in started:
            _sh(instance, "stop")
        shutil.rmtree(work, ignore_errors=True)

    print(f"\nNeo4j load of {papers:,} abstracts ({n_nodes:,} nodes, {n_rels:,} relationships)")
    print(f"{'load':<34}{'nodes/s':>12}{'relationships/s':>18}{'seconds':>10}")
    b, r = results.get("batched"), results.get("row_by_row")
    if b:
        print(
            f"{'batched UNWIND, ' + str(args.batch_size) + ' rows/tx':<34}{b['nodes_per_s']:>12,.0f}"
            f"{b['rels_per_s']:>18,.0f}{b['seconds']:>10.1f}"
        )
    if r:
        what = "all" if r["relationships"] == n_rels else f"{r['relationships']:,} sampled"
        print(
            f"{'row by row, 1 MERGE/tx (' + what + ')':<34}{'':>12}{r['rels_per_s']:>18,.0f}{r['seconds']:>10.1f}"
        )
    if "neo4j_admin" in results:
        a = results["neo4j_admin"]
        print(
            f"{'neo4j-admin database import full':<34}{a['nodes_per_s']:>12,.0f}{a['rels_per_s']:>18,.0f}"
            f"{a['seconds']:>10.1f}"
        )
    if b and r:
        print(f"batched is {b['rels_per_s'] / r['rels_per_s']:.0f}x row by row (relationships/s)")
    if args.json:
        print(json.dumps({"papers": papers, "nodes": n_nodes, "relationships": n_rels, **results}))


def _push(
    args: argparse.Namespace,
    graph: Any,
    work: Path,
    started: list[Path],
    uri: str | None,
    rel_rows: dict,
    n_nodes: int,
    n_rels: int,
    results: dict[str, dict],
) -> str:
    """``batched``: kg push into an empty database; ``rows``: then its relationships again, one
    MERGE per transaction. Starts a throw-away server unless ``uri`` names one."""
    from graph_exports import neo4j as kg_neo4j

    methods = set(args.methods.split(","))
    if not uri:
        main_instance = work / "push"
        main_instance.mkdir()
        uri = _sh(main_instance, "start").stdout.strip().splitlines()[-1]
        started.append(main_instance)
    wipe = "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
    with kg_neo4j.open_driver(
        uri, os.environ.get("NEO4J_USERNAME"), os.environ.get("NEO4J_PASSWORD")
    ) as driver:
        _autocommit(driver, wipe)
        # warm-up: the server compiles each statement once; do not time that
        kg_neo4j.push(_small(graph), driver, batch_size=args.batch_size)
        _autocommit(driver, wipe)
        stats = kg_neo4j.push(graph, driver, batch_size=args.batch_size)
        if "batched" in methods:
            results["batched"] = {
                "nodes_per_s": n_nodes / stats.node_seconds,
                "rels_per_s": n_rels / stats.relationship_seconds,
                "seconds": stats.seconds,
                "relationships": n_rels,
            }
        if "rows" in methods:
            # delete the relationships, keep the nodes, MERGE one row per transaction
            _autocommit(
                driver, "MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS"
            )
            sample = _spread(kg_neo4j.relationship_statements(rel_rows), args.row_sample or n_rels)
            t = time.perf_counter()
            for query, row in sample:
                driver.execute_query(query, parameters_={"rows": [row]})
            seconds = time.perf_counter() - t
            results["row_by_row"] = {
                "rels_per_s": len(sample) / seconds,
                "seconds": seconds,
                "relationships": len(sample),
            }
    return uri


def _autocommit(driver, query: str) -> None:
    """``CALL {} IN TRANSACTIONS`` needs an auto-commit transaction (session.run, not execute_query)."""
    with driver.session() as session:
        session.run(query).consume()


def _small(graph):
    """A few papers with their neighbours: enough to compile every statement."""
    import networkx as nx

    from kg.schema import as_nx

    G = as_nx(graph)
    papers = [n for n, d in G.nodes(data=True) if d.get("label") == "Paper"][:50]
    keep = set(papers)
    for p in papers:
        keep.update(G.successors(p))
    return nx.MultiDiGraph(G.subgraph(keep))


def _spread(statements, limit: int) -> list[tuple[str, dict]]:
    """Up to ``limit`` (query, row) pairs, taking every type in proportion to its size."""
    total = sum(len(rows) for _, rows in statements)
    out: list[tuple[str, Any]] = []
    for query, rows in statements:
        take = len(rows) if limit >= total else max(1, round(limit * len(rows) / total))
        out.extend((query, row) for row in rows[:take])
    return out


def _import_line(text: str) -> str:
    for line in text.splitlines():
        if "IMPORT DONE" in line:
            return line.strip()
    return ""


if __name__ == "__main__":
    main()
