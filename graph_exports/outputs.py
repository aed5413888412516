"""The files of one ``kg build``, published together.

graph.json, merges.jsonl, graph.graphml, graph.html and summary.json are written to temporary files
beside their targets and renamed into place only when all of them are complete: a build that fails
half-way (a full disk, an error in one export) leaves the previous build's files exactly as they were.

With ``processes`` above 1 (``kg build`` passes its ``--workers``), GraphML and the page are written
by forked child processes while this one writes graph.json: the writers are independent and each
takes seconds to minutes on a large graph, which would otherwise leave the other cores idle at the
end of a build. GraphML, the largest, is written in consecutive shares at once (this process
writes the first after graph.json), joined when all are done. The bytes are the same either way.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kg.atomic import TEMP_PREFIX, AtomicFiles
from kg.errors import ExportError
from kg.graph import KnowledgeGraph

from .files import graphml_ends, iter_graphml_elements, write_graphml, write_json

if TYPE_CHECKING:
    from kg.store import StoreSpool

__all__ = ["OUTPUT_FILES", "write_build_outputs"]

#: What a build writes into its output folder (graph.html only with ``html``).
OUTPUT_FILES = ("summary.json", "merges.jsonl", "graph.json", "graph.graphml", "graph.html")
#: Processes writing parts of graph.graphml at most (each scans the whole graph for its keys).
MAX_GRAPHML_PARTS = 8
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
            _write_in_parallel(graph, out, files, html=html, processes=processes)
    written = [out / name for name in OUTPUT_FILES if html or name != "graph.html"]
    return written + ([out / STORE_FILE] if store is not None else [])


def _write_in_parallel(
    graph: KnowledgeGraph, out: Path, files: AtomicFiles, *, html: bool, processes: int
) -> None:
    """graph.json and the start of GraphML here, the rest of GraphML (in ``processes - 1``
    consecutive shares, joined after) and the page in forked children; the first failure in file
    order is raised once every writer has finished."""
    children: list[tuple[str, _Child]] = []
    graphml = out / "graph.graphml"
    temps = [files.reserve(graphml)]
    # a forked child that reads an object copies its page of memory (it writes the reference
    # count), so each GraphML writer reads only its share of the elements, and this process, which
    # has the pass over every attribute for the header to make too, the smallest
    shares = _graphml_shares(min(processes, MAX_GRAPHML_PARTS))
    try:
        for share in shares[1:]:
            temps.append(_temp_beside(graphml))
            children.append(
                (
                    "graph.graphml",
                    _Child(
                        graphml,
                        temps[-1],
                        partial(iter_graphml_elements, share=share),
                        graph,
                        sync=False,
                    ),
                )
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
        tail = ""
        try:
            head, tail = graphml_ends(graph)
            with temps[0].open("w", encoding="utf-8", newline="") as handle:
                handle.write(head)
                for piece in iter_graphml_elements(graph, share=shares[0]):
                    handle.write(piece)
        except ExportError as exc:
            errors["graph.graphml"] = exc
        except OSError as exc:
            errors["graph.graphml"] = ExportError(_cannot_write(graphml, exc))
        for name, child in children:
            problem = child.wait()
            if problem is not None:
                errors.setdefault(name, ExportError(problem))
        children.clear()
        if "graph.graphml" not in errors:
            try:
                _join(temps, tail)
            except OSError as exc:
                errors["graph.graphml"] = ExportError(_cannot_write(graphml, exc))
        for name in OUTPUT_FILES:
            if name in errors:
                raise errors[name]
    finally:
        for _, child in children:  # an unexpected error here: do not leave writers running
            child.kill()
        for temp in temps[1:]:
            temp.unlink(missing_ok=True)


#: The share of GraphML's elements that the process writing graph.json writes too, with 2
#: processes, so that the writers end together (at 21,000 papers: 5.2-5.4 s for the files after
#: graph.json starts, against 6.3 s with 0.3 and 7.3 s with all of GraphML in one child; this
#: process also makes the header's pass over every attribute and joins the shares).
_PARENT_SHARE = 0.25


def _graphml_shares(processes: int) -> list[tuple[float, float]]:
    """This process's share of GraphML's elements, then each child's."""
    first = _PARENT_SHARE * 2 / processes
    bounds = [0.0, first] + [
        first + (1.0 - first) * i / (processes - 1) for i in range(1, processes)
    ]
    bounds[-1] = 1.0
    return list(zip(bounds, bounds[1:], strict=False))


def _cannot_write(path: Path, exc: OSError) -> str:
    return f"{path}: cannot write ({exc.strerror or exc}); the previous file is unchanged"


def _temp_beside(path: Path) -> Path:
    """A new empty file beside ``path``, named as :class:`AtomicFiles` names its temporary files."""
    try:
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX + path.name + ".")
    except OSError as exc:
        raise ExportError(_cannot_write(path, exc)) from exc
    os.close(fd)
    return Path(temp)


def _join(parts: list[Path], tail: str) -> None:
    """Append ``parts[1:]`` and then ``tail`` to ``parts[0]``, and make it durable."""
    with parts[0].open("ab") as whole:
        for part in parts[1:]:
            with part.open("rb") as piece:
                shutil.copyfileobj(piece, whole, 1 << 20)
        whole.write(tail.encode("utf-8"))
        whole.flush()
        os.fsync(whole.fileno())


class _Child:
    """One file written by a forked copy of this process: ``pieces(graph)`` into ``temp``, which
    the parent's :class:`AtomicFiles` renames to ``target`` when everything is written."""

    def __init__(
        self,
        target: Path,
        temp: Path,
        pieces: Callable[[KnowledgeGraph], Iterable[str]],
        graph: KnowledgeGraph,
        *,
        sync: bool = True,
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
                    if sync:  # (a part of a file is made durable once joined)
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
