"""The extraction store: each paper of a build with the mentions, relations and results read in it.

``kg build`` writes it as ``extractions.jsonl`` beside the graph, one line per paper in build
order, after a header naming the pipeline that extracted them. ``kg build NEW --update DIR`` reads
it back: papers it has already seen (same id, same title and abstract) reuse their mentions
instead of going through the pipeline again, so adding this month's papers costs this month's
extraction. A mention's sentence is kept as ``[start, length]`` into the abstract when it is a
slice of it (it always is for the shipped pipeline), so the store is not a second copy of the text.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from spacy.language import Language

from extractors.parallel import ExtractionRecords, from_records, to_records
from extractors.pipeline import Extraction

from .atomic import TEMP_PREFIX
from .errors import KgError
from .fastjson import dumps_text, loads
from .model import Paper

__all__ = [
    "STORE_FILE",
    "STORE_VERSION",
    "StoreError",
    "StoredPaper",
    "StoreSpool",
    "content_key",
    "pipeline_fingerprint",
    "write_store",
    "read_store",
]

STORE_FILE = "extractions.jsonl"
STORE_VERSION = 1
#: Index of ``sentence`` among a mention tuple's fields (paper id left out; see
#: extractors.parallel).
_SENTENCE = 4
_REL_SENTENCE = 5


class StoreError(KgError):
    """The extraction store is missing, unreadable, or from another pipeline."""


def content_key(paper: Paper) -> str:
    """What a paper's mentions depend on besides the pipeline: its title and exact abstract."""
    text = f"{paper.title or ''}\x00{paper.abstract}"
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def pipeline_fingerprint(nlp: Language) -> dict[str, Any]:
    """Enough of a pipeline to tell that cached mentions came from the same one: its name,
    version, components and the kg version."""
    from kg import __version__

    meta = nlp.meta
    return {
        "name": meta.get("name"),
        "version": meta.get("version"),
        "lang": nlp.lang,
        "pipes": list(nlp.pipe_names),
        "kg": __version__,
    }


@dataclass(frozen=True, slots=True)
class StoredPaper:
    """One paper read back from the store, with its extraction in plain-tuple form."""

    paper: Paper
    key: str
    records: ExtractionRecords
    #: where its line is in the store file (byte offset, length), so an update can copy it as is
    span: tuple[int, int] = (0, 0)

    def extraction(self) -> Extraction:
        return from_records(self.paper, self.records)


def _pack_sentence(abstract: str, sentence: str, start: int | None) -> Any:
    if start is None:
        start = abstract.find(sentence)
    if start >= 0 and abstract.startswith(sentence, start):
        return [start, len(sentence)]
    return sentence


def _unpack_sentence(abstract: str, value: Any, cache: dict[tuple[int, int], str]) -> str:
    if isinstance(value, str):
        return value
    start, length = value
    text = cache.get((start, length))
    if text is None:
        text = cache[(start, length)] = abstract[start : start + length]
    return text


def _line(item: Extraction) -> str:
    paper = item.paper
    mentions, relations, results = to_records(item)
    packed_mentions = [
        [
            *m[:_SENTENCE],
            _pack_sentence(paper.abstract, m[_SENTENCE], m[_SENTENCE + 1]),
            *m[_SENTENCE + 1 :],
        ]
        for m in mentions
    ]
    packed_relations = [
        [
            *r[:_REL_SENTENCE],
            _pack_sentence(paper.abstract, r[_REL_SENTENCE], None),
            *r[_REL_SENTENCE + 1 :],
        ]
        for r in relations
    ]
    row = {
        "key": content_key(paper),
        "paper": paper.to_dict(),
        "mentions": packed_mentions,
        "relations": packed_relations,
        "results": [list(r) for r in results],
    }
    return dumps_text(row) + "\n"


def _header(fingerprint: dict[str, Any]) -> str:
    """The store's first line: its version and the pipeline that extracted it."""
    return json.dumps({"kg_extractions": STORE_VERSION, "pipeline": fingerprint}) + "\n"


def write_store(handle: IO[str], items: Iterable[Extraction], fingerprint: dict[str, Any]) -> int:
    """Write the store to an open text file; returns the number of papers written."""
    handle.write(_header(fingerprint))
    count = 0
    for item in items:
        handle.write(_line(item))
        count += 1
    return count


class StoreSpool:
    """The store written while a build runs, one line per paper as it comes out of extraction, to a
    temporary file: the build holds no list of every paper's mentions, the lines are written while
    the workers extract, and :func:`graph_exports.outputs.write_build_outputs` moves the file into
    place with the build's other files. The file is removed when the spool is garbage collected
    without having been moved."""

    def __init__(
        self,
        fingerprint: dict[str, Any],
        folder: str | Path | None = None,
        *,
        earlier: Path | None = None,
        lines: dict[tuple[str, str], tuple[int, int]] | None = None,
    ) -> None:
        """``earlier``, ``lines``: a store of the same pipeline and where each of its papers'
        lines is, by (paper id, content key); those papers' lines are copied from it as they are
        rather than encoded again (an update re-writes the whole store), and taken out of
        ``lines``."""
        fd, name = tempfile.mkstemp(prefix=TEMP_PREFIX + STORE_FILE + ".", dir=folder)
        self.path = Path(name)
        self.count = 0
        self._handle: IO[bytes] | None = os.fdopen(fd, "wb")
        self._cleanup = weakref.finalize(self, _remove, self.path, self._handle)
        self._lines = lines or {}
        self._earlier = earlier.open("rb") if earlier is not None and self._lines else None
        self._run = [0, 0]  # [start, end) of the earlier store's lines still to be copied
        self._handle.write(_header(fingerprint).encode())

    def add(self, item: Extraction, stored: tuple[str, str] | None = None) -> None:
        """Write ``item``'s line; ``stored``: the (paper id, content key) it was read from the
        earlier store under, when it was (the content key is computed when not given)."""
        if self._handle is None:
            raise ValueError("the store spool is finished")
        # each earlier line is copied once: taken out, so the index shrinks as the build goes
        if stored is None and self._lines:
            stored = (item.paper.id, content_key(item.paper))
        span = self._lines.pop(stored, None) if stored is not None and self._lines else None
        if span is not None and self._earlier is not None:
            start, length = span
            if self._run[1] != start:  # not the line after the last one copied
                self._copy_run()
                self._run[0] = start
            self._run[1] = start + length
        else:
            self._copy_run()
            self._handle.write(_line(item).encode("utf-8", "surrogatepass"))
        self.count += 1

    def _copy_run(self) -> None:
        """Copy the earlier store's lines waiting to be copied (consecutive lines at once: an
        update's papers come in the order of its store)."""
        start, end = self._run
        if end <= start or self._earlier is None or self._handle is None:
            return
        self._earlier.seek(start)
        last = b""
        while start < end:
            chunk = self._earlier.read(min(end - start, 1 << 20))
            if not chunk:
                break
            self._handle.write(chunk)
            start += len(chunk)
            last = chunk[-1:]
        if last != b"\n":  # the earlier store's last line, written without one
            self._handle.write(b"\n")
        self._run = [0, 0]

    def finish(self) -> Path:
        """Close the file (flushed to disk) and hand it over: the caller moves or removes it."""
        if self._handle is not None:
            self._copy_run()
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None
        if self._earlier is not None:
            self._earlier.close()
            self._earlier = None
        return self.path

    def release(self) -> None:
        """The file has been moved away: nothing to remove any more."""
        self._cleanup.detach()

    def __iter__(self) -> Iterator[StoredPaper]:
        """The papers written so far (for tests and tools)."""
        self.finish()
        return read_store(self.path)


def _remove(path: Path, handle: IO[bytes]) -> None:
    try:
        handle.close()
    finally:
        path.unlink(missing_ok=True)


def _paper(data: dict[str, Any]) -> Paper:
    return Paper(
        **{
            **data,
            "authors": tuple(data.get("authors") or ()),
            "keywords": tuple(data.get("keywords") or ()),
        }
    )


def read_store(
    path: str | Path, fingerprint: dict[str, Any] | None = None
) -> Iterator[StoredPaper]:
    """The papers of a store in build order (streamed: one line in memory at a time).

    Raises:
        StoreError: no such file, not a store, another store version, or (``fingerprint``)
            extracted by another pipeline; the message names the file and line.
    """
    path = Path(path)
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise StoreError(
            f"{path}: no extraction store; --update needs a folder written by kg build "
            "(it keeps extractions.jsonl beside graph.json)"
        ) from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    with handle:
        try:
            first = handle.readline()
            header = json.loads(first or "null")
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("kg_extractions") != STORE_VERSION:
            raise StoreError(
                f"{path}:1: not a kg extraction store of version {STORE_VERSION}; "
                "rebuild without --update"
            )
        if fingerprint is not None and header.get("pipeline") != fingerprint:
            raise StoreError(
                f"{path}:1: extracted with another pipeline ({header.get('pipeline')}, this one is "
                f"{fingerprint}); cached mentions would not match, rebuild without --update"
            )
        offset = len(first)
        for line_no, line in enumerate(handle, start=2):
            span = (offset, len(line))
            offset += len(line)
            try:
                row = loads(line)
                paper = _paper(row["paper"])
                cache: dict[tuple[int, int], str] = {}
                mentions = [
                    (
                        *m[:_SENTENCE],
                        _unpack_sentence(paper.abstract, m[_SENTENCE], cache),
                        *m[_SENTENCE + 1 :],
                    )
                    for m in row["mentions"]
                ]
                relations = [
                    (
                        *r[:_REL_SENTENCE],
                        _unpack_sentence(paper.abstract, r[_REL_SENTENCE], cache),
                        *r[_REL_SENTENCE + 1 :],
                    )
                    for r in row["relations"]
                ]
                results = [tuple(r) for r in row["results"]]
                key = row["key"]
            except (ValueError, KeyError, TypeError) as exc:
                raise StoreError(
                    f"{path}:{line_no}: not an extraction record ({type(exc).__name__}: {exc}); "
                    "the store is damaged, rebuild without --update"
                ) from exc
            yield StoredPaper(paper, key, (mentions, relations, results), span)
