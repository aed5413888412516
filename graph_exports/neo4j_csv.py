"""Bulk path into Neo4j: CSV files for ``neo4j-admin database import full``.

For graphs too big to push transaction by transaction: write the files, then (server stopped, or
into a database that does not exist yet)::

    neo4j-admin database import full @DIR/import.args neo4j

The files hold the same labels, types and properties as :func:`graph_exports.neo4j.push` writes
(its :func:`~graph_exports.neo4j.to_rows` builds both), one file per node label and per relationship
type, each with its own header (``id:ID``, ``:LABEL``, ``:START_ID``, ``:END_ID``, ``:TYPE`` and typed
property columns such as ``year:long`` or ``aliases:string[]``). Arrays are separated by the ASCII
unit separator (U+001F), so a ``;`` or ``|`` inside an alias stays in the alias; fields may span lines.
Schema (constraints, full-text index) is not part of an import: ``schema.cypher`` beside the files
holds the statements, for ``cypher-shell -f schema.cypher`` once the server runs the new database.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from kg.atomic import AtomicFiles
from kg.errors import ExportError
from kg.graph import KnowledgeGraph
from kg.schema import RESULT_LABEL, as_nx

from .cypher import ENTITY_LABEL, schema_statements
from .neo4j import to_rows

__all__ = ["ARRAY_DELIMITER", "CsvImport", "to_neo4j_csv", "write_neo4j_csv"]

ARRAY_DELIMITER = "\x1f"


@dataclass
class CsvImport:
    """The files written and the ``neo4j-admin database import full`` options that load them.

    Attributes:
        directory: where the files are.
        nodes: ``(label, file)`` per node file; ``relationships``: ``(type, file)`` per relationship file.
        node_count, relationship_count: rows written.
    """

    directory: Path
    nodes: list[tuple[str, Path]] = field(default_factory=list)
    relationships: list[tuple[str, Path]] = field(default_factory=list)
    node_count: int = 0
    relationship_count: int = 0

    def args(self) -> list[str]:
        """Options for ``neo4j-admin database import full ... <database>`` (the database name last)."""
        return [
            *(f"--nodes={path}" for _, path in self.nodes),
            *(f"--relationships={path}" for _, path in self.relationships),
            f"--array-delimiter={ARRAY_DELIMITER}",
            "--multiline-fields=true",
            "--id-type=string",
            f"--report-file={self.directory.resolve() / 'import.report'}",
        ]


def _column_type(values: list[Any]) -> str:
    """neo4j-admin type of a column from its non-missing values."""
    kinds = set()
    for value in values:
        if isinstance(value, list):
            inner = {
                (
                    "boolean"
                    if isinstance(v, bool)
                    else "long"
                    if isinstance(v, int)
                    else "double"
                    if isinstance(v, float)
                    else "string"
                )
                for v in value
            }
            kinds.add(((inner.pop() if len(inner) == 1 else "string") if inner else "") + "[]")
        else:
            kinds.add(
                "boolean"
                if isinstance(value, bool)
                else "long"
                if isinstance(value, int)
                else "double"
                if isinstance(value, float)
                else "string"
            )
    if kinds == {"long", "double"}:
        return "double"
    if kinds == {"[]"}:
        return "string[]"
    arrays = {k for k in kinds if k.endswith("[]")}
    if arrays and kinds <= arrays | {"[]"}:
        arrays.discard("[]")
        if arrays <= {"long[]", "double[]"} and len(arrays) > 1:
            return "double[]"
        return arrays.pop() if len(arrays) == 1 else "string[]"
    return kinds.pop() if len(kinds) == 1 else "string"


def _cell(value: Any, column_type: str) -> str:
    if value is None:
        return ""
    if column_type.endswith("[]"):
        items = value if isinstance(value, list) else [value]
        text = [("true" if v else "false") if isinstance(v, bool) else str(v) for v in items]
        if any(ARRAY_DELIMITER in t for t in text):
            raise ExportError(
                f"an array value contains U+001F, the import's array delimiter: {text!r}"
            )
        return ARRAY_DELIMITER.join(text)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _table(
    rows: list[dict[str, Any]], fixed: list[str]
) -> tuple[list[str], list[str], list[list[str]]]:
    """(header, property names, cells) for rows whose first columns are ``fixed``."""
    names = sorted({name for row in rows for name in row} - set(fixed))
    types = {
        name: _column_type([row[name] for row in rows if row.get(name) is not None])
        for name in names
    }
    header = list(fixed) + [f"{name}:{types[name]}" for name in names]
    cells = [
        [row[f] for f in fixed] + [_cell(row.get(name), types[name]) for name in names]
        for row in rows
    ]
    return header, names, cells


def to_neo4j_csv(graph: KnowledgeGraph | nx.MultiDiGraph) -> dict[str, list[list[str]]]:
    """The import files as ``{file name: rows}`` (header first), without touching the disk."""
    G = as_nx(graph, ExportError)
    node_rows, rel_rows = to_rows(G)
    files: dict[str, list[list[str]]] = {}
    for label, rows in node_rows.items():
        flat = []
        for row in rows:
            props = {k: v for k, v in row["props"].items() if k != "id"}
            if label not in ("Paper", RESULT_LABEL):
                attrs = G.nodes[row["id"]]
                props["aliases"] = row["aliases"]
                for name in ("support", "mention_count"):
                    if attrs.get(name) is not None:
                        props[name] = attrs[name]
            labels = (
                label
                if label in ("Paper", RESULT_LABEL)
                else f"{label}{ARRAY_DELIMITER}{ENTITY_LABEL}"
            )
            flat.append({"id:ID": row["id"], ":LABEL": labels, **props})
        header, _, cells = _table(flat, ["id:ID", ":LABEL"])
        files[f"nodes-{label}.csv"] = [header, *cells]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for (rel_type, _, _), rows in rel_rows.items():
        for row in rows:
            props = dict(row["props"])
            if "papers" in row:  # entity -> entity: the same derived properties as a push
                props.update(
                    papers=row["papers"],
                    paper_counts=row["paper_counts"],
                    paper_weights=row["paper_weights"],
                    count=sum(row["paper_counts"]),
                    weight=max(row["paper_weights"], default=0.0),
                    evidence=row["evidence"],
                    sentences=row["sentences"],
                    evidence_papers=row["evidence_papers"],
                    support=len(row["papers"]),
                    evidence_count=len(row["evidence"]),
                )
            by_type.setdefault(rel_type, []).append(
                {":START_ID": row["start"], ":END_ID": row["end"], ":TYPE": rel_type, **props}
            )
    for rel_type, rows in sorted(by_type.items()):
        header, _, cells = _table(rows, [":START_ID", ":END_ID", ":TYPE"])
        files[f"relationships-{rel_type}.csv"] = [header, *cells]
    return files


def write_neo4j_csv(graph: KnowledgeGraph | nx.MultiDiGraph, outdir: str | Path) -> CsvImport:
    """Write the import files into ``outdir`` (created if needed) plus ``import.args``, the options
    to pass to ``neo4j-admin database import full``. Returns what was written.

    The files are replaced together, only once all of them are complete."""
    outdir = Path(outdir)
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(
            f"{outdir}: cannot write the Neo4j import files ({exc.strerror or exc})"
        ) from exc
    result = CsvImport(directory=outdir)
    with AtomicFiles() as files:
        for name, rows in to_neo4j_csv(graph).items():
            path = outdir / name
            with files.open(path, newline="") as handle:
                csv.writer(handle, quoting=csv.QUOTE_MINIMAL, lineterminator="\n").writerows(rows)
            kind = name.split("-", 1)[1].removesuffix(".csv")
            if name.startswith("nodes-"):
                result.nodes.append((kind, path.resolve()))
                result.node_count += len(rows) - 1
            else:
                result.relationships.append((kind, path.resolve()))
                result.relationship_count += len(rows) - 1
        # picocli argument file: one quoted option per line (read by `neo4j-admin ... @import.args`)
        files.write_text(
            outdir / "import.args",
            "".join(
                '"' + a.replace("\\", "\\\\").replace('"', '\\"') + '"\n' for a in result.args()
            ),
        )
        files.write_text(
            outdir / "schema.cypher", "".join(f"{stmt};\n" for stmt in schema_statements())
        )
    return result
