"""The files of one ``kg build``, published together.

graph.json, merges.jsonl, graph.graphml, graph.html and summary.json are written to temporary files
beside their targets and renamed into place only when all of them are complete: a build that fails
half-way (a full disk, an error in one export) leaves the previous build's files exactly as they were.

With ``processes`` above 1 (``kg build`` passes its ``--workers``), GraphML and the page are written
by forked child processes while this one writes graph.json: the writers are independent and each
takes seconds to minutes on a large graph, which would otherwise leave the other cores idle at the
end of a build. GraphML, the largest, is written in chunks that the children and this process
(once graph.json is written) claim one after another, joined when all are done. The bytes are the
same either way.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.atomic import AtomicFiles
from kg.errors import ExportError
from kg.forked import Pending
from kg.graph import KnowledgeGraph

from .files import (
    GraphmlKeys,
    graphml_ends,
    graphml_parts,
    iter_graphml_elements,
    write_graphml,
    write_json,
)

if TYPE_CHECKING:
    from kg.store import StoreSpool

__all__ = ["OUTPUT_FILES", "write_build_outputs"]

#: What a build writes into its output folder (graph.html only with ``html``).
OUTPUT_FILES = ("summary.json", "merges.jsonl", "graph.json", "graph.graphml", "graph.html")
#: Processes writing parts of graph.graphml at most (each is a forked copy of this one).
MAX_GRAPHML_WRITERS = 8
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
    processes: int = 1,
) -> list[Path]:
    """Write a build's files into ``out``, all or none; returns their paths.

    ``store``, the extraction store the build spooled (:class:`kg.store.StoreSpool`), becomes
    ``extractions.jsonl``, which ``kg build --update`` reads. ``processes``: how many files may be
    written at once (see the module's docstring; 1 on systems without ``fork``).

    Raises:
        ExportError: a file could not be written (the first one, in the order they are listed in
            ``OUTPUT_FILES``, when several could not); no file in ``out`` has changed.
    """
    out = Path(out)
    parallel = processes > 1 and hasattr(os, "fork")
    with AtomicFiles() as files:  # smallest first, so that a full disk is met as early as can be
        files.write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
        with files.open(out / "merges.jsonl") as handle:  # a line at a time: no second copy
            handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in merges)
        if store is not None:
            files.adopt(store.finish(), out / STORE_FILE)
            store.release()
        if not parallel:
            write_json(graph, out / "graph.json", files=files)
            write_graphml(graph, out / "graph.graphml", files=files)
            if html:
                from .html import write_html

                write_html(graph, out / "graph.html", files=files)
        else:
            _write_in_parallel(graph, out, files, html=html, processes=processes)
    written = [out / name for name in OUTPUT_FILES if html or name != "graph.html"]
    return written + ([out / STORE_FILE] if store is not None else [])


def _write_in_parallel(
    graph: KnowledgeGraph, out: Path, files: AtomicFiles, *, html: bool, processes: int
) -> None:
    """graph.json here, the page in a forked child, and GraphML's elements in chunks that this
    process and ``processes - 1`` forked children claim one at a time (:func:`_write_claimed`), so
    that all of them end together whatever each one's speed; this process starts claiming once
    graph.json is written. Each chunk's writer notes the keys its elements have, so GraphML's
    header, made from them all, is written last, at the join of the chunks. A child that dies
    has its chunks (or its page) written here instead; the first failure in file order is raised
    once every writer has finished."""
    children: list[tuple[str, Pending[Any]]] = []
    graphml = out / "graph.graphml"
    whole = files.reserve(graphml)
    writers = min(processes, MAX_GRAPHML_WRITERS)
    chunks = min(_CHUNKS_PER_WRITER * writers, 255)
    # a forked child that reads an object copies its page of memory (it writes the reference
    # count), so each writer reads only the chunks it writes
    parts = graphml_parts(graph, [(i / chunks, (i + 1) / chunks) for i in range(chunks)])
    temps = [files.scratch(graphml) for _ in parts]
    # the chunks to claim, one byte each, in a pipe whose writing end is closed before any child
    # starts: a read takes one chunk, or gets nothing once all are taken
    claims, queue = os.pipe()
    try:
        with os.fdopen(queue, "wb") as handle:
            handle.write(bytes(range(len(parts))))
        claim = partial(_write_claimed, graph, parts, graphml, temps, claims)
        for _ in range(writers - 1):
            children.append(("graph.graphml", Pending(claim, processes=processes)))
        if html:
            from .html import to_html

            page = out / "graph.html"
            write_page = partial(_write_file, page, files.reserve(page), lambda: [to_html(graph)])
            children.append(("graph.html", Pending(write_page, processes=processes)))
        errors: dict[str, ExportError] = {}
        try:
            write_json(graph, out / "graph.json", files=files)
        except ExportError as exc:
            errors["graph.json"] = exc
        written = claim()
        for name, child in children:
            if name == "graph.graphml":
                written.update(child.result())
            else:
                problem = child.result()
                if problem is not None:
                    errors.setdefault(name, ExportError(problem))
        children.clear()
        for index, part in enumerate(parts):  # the chunks of a child that died
            if index not in written:
                written[index] = _write_part(graph, part, graphml, temps[index])
        keys = GraphmlKeys()
        for index in range(len(parts)):
            problem, more = written[index]
            if problem is not None:
                errors.setdefault("graph.graphml", ExportError(problem))
            keys.merge(more)
        if "graph.graphml" not in errors:
            try:
                head, tail = graphml_ends(graph, keys)
                _join(whole, head, temps, tail)
            except ExportError as exc:
                errors["graph.graphml"] = exc
            except OSError as exc:
                errors["graph.graphml"] = ExportError(_cannot_write(graphml, exc))
        for name in OUTPUT_FILES:
            if name in errors:
                raise errors[name]
    finally:
        os.close(claims)
        for _, child in children:  # an unexpected error here: do not leave writers running
            child.cancel()


def _write_claimed(
    graph: KnowledgeGraph,
    parts: list[tuple[list[Any], list[Any]]],
    target: Path,
    temps: list[Path],
    claims: int,
) -> dict[int, tuple[str | None, GraphmlKeys]]:
    """Claim chunks of GraphML's elements from the pipe ``claims`` until none is left, writing
    each to its temporary file; what went wrong (or None) and the keys met, by chunk."""
    written = {}
    while token := os.read(claims, 1):
        index = token[0]
        written[index] = _write_part(graph, parts[index], target, temps[index])
    return written


def _write_part(
    graph: KnowledgeGraph, part: tuple[list[Any], list[Any]], target: Path, temp: Path
) -> tuple[str | None, GraphmlKeys]:
    """One part of GraphML's elements into ``temp`` (see :func:`_write_file`), and their keys."""
    keys = GraphmlKeys()
    pieces = partial(iter_graphml_elements, graph, part=part, keys=keys)
    return _write_file(target, temp, pieces, sync=False), keys


def _write_file(
    target: Path, temp: Path, pieces: Callable[[], Iterable[str]], *, sync: bool = True
) -> str | None:
    """``pieces()`` into ``temp`` (which the caller's :class:`AtomicFiles` renames to ``target``);
    what went wrong as one line naming ``target``, or None. ``sync``: make it durable (a part of a
    file is made durable once joined)."""
    try:
        with temp.open("w", encoding="utf-8", newline="") as handle:
            for piece in pieces():
                handle.write(piece)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
    except OSError as exc:
        return _cannot_write(target, exc)
    except ExportError as exc:
        return str(exc)
    except Exception as exc:  # whatever it is, reported as one line
        return f"{target}: {exc!r}"
    return None


#: Chunks of GraphML's elements per writing process: each takes the next one left when it is done
#: with one, so a writer that is slowed (by the page copies a forked child makes, or another
#: program) writes fewer. A fixed share per process had to be tuned to one machine: with 2
#: processes the driver's share was best at 0.35 of the elements on one VM and left the driver or
#: the child waiting by a second on others.
_CHUNKS_PER_WRITER = 8


def _cannot_write(path: Path, exc: OSError) -> str:
    return f"{path}: cannot write ({exc.strerror or exc}); the previous file is unchanged"


def _join(whole: Path, head: str, parts: list[Path], tail: str) -> None:
    """``head``, each of ``parts`` in turn and ``tail`` into ``whole``, made durable."""
    with whole.open("wb") as out:
        out.write(head.encode("utf-8"))
        for part in parts:
            with part.open("rb") as piece:
                shutil.copyfileobj(piece, out, 1 << 20)
        out.write(tail.encode("utf-8"))
        out.flush()
        os.fsync(out.fileno())
