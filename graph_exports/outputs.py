"""The files of one ``kg build``, published together.

graph.json, merges.jsonl, graph.graphml, graph.html and summary.json are written to temporary files
beside their targets and renamed into place only when all of them are complete: a build that fails
half-way (a full disk, an error in one export) leaves the previous build's files exactly as they were.

With ``processes`` above 1 (``kg build`` passes its ``--workers``), GraphML and the page are written
by forked child processes while this one writes graph.json: the three writers are independent and
each takes seconds to minutes on a large graph, which would otherwise leave the other cores idle at
the end of a build. The bytes are the same either way.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.atomic import AtomicFiles
from kg.errors import ExportError
from kg.graph import KnowledgeGraph

from .files import iter_graphml, write_graphml, write_json

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
        files.write_text(
            out / "merges.jsonl",
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in merges),
        )
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
            _write_in_parallel(graph, out, files, html=html)
    written = [out / name for name in OUTPUT_FILES if html or name != "graph.html"]
    return written + ([out / STORE_FILE] if store is not None else [])


def _write_in_parallel(graph: KnowledgeGraph, out: Path, files: AtomicFiles, *, html: bool) -> None:
    """graph.json here, GraphML and the page in forked children; the first failure in file order
    is raised once every writer has finished."""
    children: list[tuple[str, _Child]] = []
    try:
        graphml = out / "graph.graphml"
        children.append(
            ("graph.graphml", _Child(graphml, files.reserve(graphml), iter_graphml, graph))
        )
        if html:
            from .html import to_html

            page = out / "graph.html"
            children.append(
                (
                    "graph.html",
                    _Child(page, files.reserve(page), lambda g: iter([to_html(g)]), graph),
                )
            )
        errors: dict[str, ExportError] = {}
        try:
            write_json(graph, out / "graph.json", files=files)
        except ExportError as exc:
            errors["graph.json"] = exc
        for name, child in children:
            problem = child.wait()
            if problem is not None:
                errors[name] = ExportError(problem)
        children.clear()
        for name in OUTPUT_FILES:
            if name in errors:
                raise errors[name]
    finally:
        for _, child in children:  # an unexpected error here: do not leave writers running
            child.kill()


class _Child:
    """One file written by a forked copy of this process: ``pieces(graph)`` into ``temp``, which
    the parent's :class:`AtomicFiles` renames to ``target`` when everything is written."""

    def __init__(
        self,
        target: Path,
        temp: Path,
        pieces: Callable[[KnowledgeGraph], Iterable[str]],
        graph: KnowledgeGraph,
    ) -> None:
        self.target = target
        read, write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: write, say what went wrong (if anything), leave at once
            os.close(read)
            code, message = 0, b""
            try:
                with temp.open("w", encoding="utf-8", newline="") as handle:
                    for piece in pieces(graph):
                        handle.write(piece)
                    handle.flush()
                    os.fsync(handle.fileno())
            except OSError as exc:
                code = 1
                message = (
                    f"{target}: cannot write ({exc.strerror or exc}); the previous file is unchanged"
                ).encode()
            except BaseException as exc:  # whatever it is, the parent reports it as one line
                code = 1
                message = (
                    str(exc) if isinstance(exc, ExportError) else f"{target}: {exc!r}"
                ).encode()
            finally:
                os.write(write, message)
                os._exit(code)
        os.close(write)
        self._read = read

    def wait(self) -> str | None:
        """Block until the child is done; its error message, or None when the file is complete."""
        with os.fdopen(self._read, "rb") as pipe:
            message = pipe.read().decode(errors="replace")
        _, status = os.waitpid(self.pid, 0)
        if os.waitstatus_to_exitcode(status) == 0:
            return None
        return message or f"{self.target}: the process writing it ended with status {status}"

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self._read)
