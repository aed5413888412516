"""The files of one ``kg build``, published together.

graph.json, merges.jsonl, graph.graphml, graph.html and summary.json are written to temporary files
beside their targets and renamed into place only when all of them are complete: a build that fails
half-way (a full disk, an error in one export) leaves the previous build's files exactly as they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.atomic import AtomicFiles
from kg.graph import KnowledgeGraph

from .files import write_graphml, write_json

if TYPE_CHECKING:
    from kg.store import StoreSpool

__all__ = ["OUTPUT_FILES", "write_build_outputs"]

#: What a build writes into its output folder (graph.html only with ``html``).
OUTPUT_FILES = ("summary.json", "merges.jsonl", "graph.json", "graph.graphml", "graph.html")
#: The mentions of every paper, for ``kg build --update`` (written when the build passes them).
STORE_FILE = "extractions.jsonl"


def write_build_outputs(
    graph: KnowledgeGraph,
    merges: list[dict[str, Any]],
    summary: dict[str, Any],
    out: str | Path,
    *,
    html: bool = True,
    store: StoreSpool | None = None,
) -> list[Path]:
    """Write a build's files into ``out``, all or none; returns their paths.

    ``store``, the extraction store the build spooled (:class:`kg.store.StoreSpool`), becomes
    ``extractions.jsonl``, which ``kg build --update`` reads.

    Raises:
        ExportError: a file could not be written; no file in ``out`` has changed.
    """
    out = Path(out)
    with AtomicFiles() as files:  # smallest first, so that a full disk is met as early as can be
        files.write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
        files.write_text(
            out / "merges.jsonl",
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in merges),
        )
        if store is not None:
            files.adopt(store.finish(), out / STORE_FILE)
            store.release()
        write_json(graph, out / "graph.json", files=files)
        write_graphml(graph, out / "graph.graphml", files=files)
        if html:
            from .html import write_html

            write_html(graph, out / "graph.html", files=files)
    written = [out / name for name in OUTPUT_FILES if html or name != "graph.html"]
    return written + ([out / STORE_FILE] if store is not None else [])
