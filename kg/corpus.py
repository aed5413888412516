"""Corpus readers: plain text, JSON lines and CSV files -> a stream of :class:`Paper` records.

Reading is streaming (one record at a time) so memory follows the graph, not the corpus. A bad
record never stops the good ones: it is reported through ``on_error`` with its file and line and
counted in :class:`CorpusStats`, unless ``strict`` makes it fatal. What a record may hold (types,
limits, text cleaning) is decided in :mod:`kg.records`.

Files are UTF-8 (a BOM is dropped) or UTF-16/UTF-32 with a BOM; lines end in ``\\n``, ``\\r\\n`` or a
lone ``\\r``. A file is binary, and skipped, when NUL bytes or invalid UTF-8 make up over 5% of its
first 8 KiB; fewer NULs are control characters, removed from the records that hold them.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import glob
import itertools
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .errors import BadRecord, CorpusError, RecordWarning
from .model import Paper
from .records import (
    FIELDS,
    LIMITS,
    Limits,
    derive_label,
    normalise_abstract,
    paper_id_for,
    to_paper,
)

__all__ = [
    "FIELDS",
    "CorpusStats",
    "read_corpus",
    "expand_inputs",
    "normalise_abstract",
    "paper_id_for",
    "derive_label",
    "parse_field_map",
]

SUFFIX_FORMAT = {
    ".txt": "txt",
    ".text": "txt",
    ".md": "txt",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".tsv": "csv",
}
DEFAULT_MAX_CHARS = 100_000
_SNIFF_BYTES = 8192
_MAX_LEADING_BLANK = 64 << 20  # read this far past leading blank lines to find the format
_MAX_PARAGRAPH = 64 << 20  # characters of one text paragraph kept (it is over --max-chars anyway)
_BINARY_SHARE = 0.05
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),  # before UTF-16: FF FE 00 00
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_NEWLINE = re.compile(rb"\r\n|\r|\n")
_JSON_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


@dataclass
class CorpusStats:
    """What a read saw: records read, papers yielded, duplicates merged, records skipped, notes on
    records a rule changed, and characters cleaned out of the text."""

    files: int = 0
    records: int = 0
    papers: int = 0
    duplicates: int = 0
    skipped: int = 0
    warnings: int = 0
    characters_removed: int = 0
    errors: list[str] = field(default_factory=list)


def parse_field_map(pairs: Iterable[str]) -> dict[str, str]:
    """Parse ``--field abstract=summary`` options into ``{"abstract": "summary"}``."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        ours, sep, theirs = pair.partition("=")
        ours, theirs = ours.strip(), theirs.strip()
        if not sep or not ours or not theirs:
            raise CorpusError(
                f"--field {pair!r}: expected FIELD=COLUMN, for example abstract=summary"
            )
        if ours not in FIELDS:
            raise CorpusError(
                f"--field {pair!r}: unknown field {ours!r}; known: {', '.join(FIELDS)}"
            )
        mapping[ours] = theirs
    return mapping


def _walk(folder: Path, on_error: Callable[[BadRecord], None] | None) -> list[Path]:
    """The readable files with a known suffix under ``folder``; what cannot be read is reported."""

    def unreadable(exc: OSError) -> None:
        if on_error is not None:
            on_error(
                BadRecord(
                    exc.filename or str(folder),
                    None,
                    f"cannot read directory ({exc.strerror or exc}); its files are not read",
                )
            )

    found = []
    for top, dirs, names in os.walk(folder, onerror=unreadable):
        dirs.sort()
        for name in names:
            path = Path(top) / name
            if path.suffix.lower() not in SUFFIX_FORMAT:
                continue
            if path.is_file():
                found.append(path)
            elif on_error is not None:
                what = (
                    "broken symbolic link"
                    if path.is_symlink() and not path.exists()
                    else "not a regular file"
                )
                on_error(BadRecord(str(path), None, f"{what}; not read"))
    return sorted(found)


def expand_inputs(
    inputs: Iterable[str | Path], on_error: Callable[[BadRecord], None] | None = None
) -> list[str]:
    """Files, directories (read recursively, known suffixes only), globs, and ``-`` for stdin.

    Unreadable subdirectories and broken links inside a directory go to ``on_error``.
    """
    out: list[str] = []
    for item in inputs:
        text = str(item)
        if text == "-":
            out.append("-")
            continue
        path = Path(text)
        if path.is_dir():
            files = _walk(path, on_error)
            if not files:
                raise CorpusError(f"{text}: directory holds no readable .txt, .jsonl or .csv files")
            out.extend(str(p) for p in files)
        elif path.exists():
            out.append(text)
        elif any(ch in text for ch in "*?["):
            matches = sorted(glob.glob(text, recursive=True))
            if not matches:
                raise CorpusError(f"{text}: pattern matches no file")
            out.extend(m for m in matches if Path(m).is_file())
        else:
            raise CorpusError(f"{text}: no such file or directory")
    return out


def read_corpus(
    inputs: Iterable[str | Path],
    *,
    fmt: str = "auto",
    fields: dict[str, str] | None = None,
    strict: bool = False,
    max_chars: int = DEFAULT_MAX_CHARS,
    stats: CorpusStats | None = None,
    on_error: Callable[[BadRecord], None] | None = None,
    stdin: IO[bytes] | None = None,
    limits: Limits = LIMITS,
    known: Iterable[Paper] = (),
) -> Iterator[Paper]:
    """Yield one :class:`Paper` per distinct abstract in ``inputs``.

    Duplicates: the first record with an id (or an abstract) is kept. A later record with the same
    abstract (case and spacing aside) is merged into it and counted, with a note when it carried
    another id; a later record with the same id but another abstract is skipped with an error.

    Args:
        inputs: paths, directories, globs, or ``"-"`` for standard input.
        fmt: ``auto`` (by suffix, sniffed for stdin), ``txt``, ``jsonl`` or ``csv``.
        fields: our field name -> the column/key holding it in the input.
        strict: raise the first bad record instead of skipping it.
        max_chars: abstracts longer than this are bad records.
        stats: filled in while reading.
        on_error: called with each skipped record's error, and each :class:`RecordWarning`.
        limits: the limits on one record's fields (:data:`kg.records.LIMITS`).
        known: papers read before (an earlier build's, for ``kg build --update``): yielded first,
            and a record of ``inputs`` that repeats one of them is a duplicate as within one read.

    Raises:
        CorpusError: an input is missing, or (``strict``) a record is bad.
    """
    stats = stats if stats is not None else CorpusStats()
    ids: dict[str, tuple[str, str]] = {}  # paper id -> (first source, abstract key)
    abstracts: dict[str, tuple[str, str]] = {}  # abstract key -> (first source, paper id)
    mapping = {name: name for name in FIELDS} | (fields or {})
    line_limit = max(16 << 20, 8 * max_chars + (1 << 20))

    def bad(err: BadRecord) -> None:
        if strict:
            raise err
        stats.skipped += 1
        stats.errors.append(str(err))
        if on_error is not None:
            on_error(err)

    def note(warning: RecordWarning) -> None:
        stats.warnings += 1
        stats.errors.append(str(warning))
        if on_error is not None:
            on_error(warning)

    for paper in known:
        key = paper_id_for(paper.abstract)
        ids[paper.id] = (paper.source, key)
        abstracts[key] = (paper.source, paper.id)
        stats.papers += 1
        yield paper
    for source in expand_inputs(inputs, bad):
        stats.files += 1
        name = "<stdin>" if source == "-" else source
        try:
            for line_no, record in _file_records(
                source, stdin, fmt, mapping, bad, line_limit, limits
            ):
                stats.records += 1
                try:
                    paper, removed, warnings = to_paper(
                        record, name, line_no, max_chars=max_chars, limits=limits
                    )
                except BadRecord as err:
                    bad(err)
                    continue
                stats.characters_removed += removed
                for warning in warnings:
                    note(warning)
                key = paper_id_for(paper.abstract)
                if key in abstracts:
                    stats.duplicates += 1
                    first, first_id = abstracts[key]
                    if _id_given(record) and paper.id != first_id:
                        note(
                            RecordWarning(
                                name,
                                line_no,
                                f"same abstract as {first} (id {first_id!r}); merged "
                                f"into it, so id {paper.id!r} is not in the graph",
                            )
                        )
                    continue
                if paper.id in ids:
                    bad(
                        BadRecord(
                            name,
                            line_no,
                            f"id {paper.id!r} is already the id of {ids[paper.id][0]}, "
                            "which has a different abstract; record skipped (the first one is kept)",
                        )
                    )
                    continue
                ids[paper.id] = (paper.source, key)
                abstracts[key] = (paper.source, paper.id)
                stats.papers += 1
                yield paper
        except OSError as exc:
            bad(
                BadRecord(
                    name,
                    None,
                    f"cannot read ({exc.strerror or exc}); records after this point are lost",
                )
            )


def _id_given(record: dict[str, Any]) -> bool:
    value = record.get("id")
    return value is not None and not (isinstance(value, str) and not value.strip())


def _file_records(
    source: str,
    stdin: IO[bytes] | None,
    fmt: str,
    mapping: dict[str, str],
    bad: Callable[[BadRecord], None],
    line_limit: int,
    limits: Limits,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line, record) pairs of one input; a file that is empty, binary or unreadable is one bad record."""
    name = "<stdin>" if source == "-" else source
    opened: contextlib.AbstractContextManager[IO[bytes]]
    try:
        opened = (
            contextlib.nullcontext(stdin if stdin is not None else sys.stdin.buffer)
            if source == "-"
            else open(source, "rb")
        )
    except OSError as exc:
        bad(BadRecord(name, None, f"cannot read ({exc.strerror or exc})"))
        return
    with opened as handle:
        raw = handle.read(_SNIFF_BYTES)
        while raw and not raw.strip() and len(raw) < _MAX_LEADING_BLANK:  # leading blank lines
            more = handle.read(1 << 20)
            if not more:
                break
            raw += more
        if not raw.strip():
            bad(BadRecord(name, None, "empty file, no records"))
            return
        codec = next((c for bom, c in _BOMS if raw.startswith(bom)), None)
        if codec is not None:
            chunks = _recoded(raw, handle, codec)
            raw = next(chunks, b"")
        else:
            problem = _binary(raw)
            if problem:
                bad(BadRecord(name, None, problem))
                return
            chunks = iter(lambda: handle.read(1 << 16), b"")
        kind = fmt if fmt != "auto" else _detect_format(source, raw)
        lines = _decoded_lines(_split_lines(raw, chunks, line_limit), name, bad)
        readers = {"txt": _txt_records, "jsonl": _jsonl_records, "csv": _csv_records}
        yield from readers[kind](lines, name, mapping, bad, limits)


def _binary(head: bytes) -> str | None:
    """Why ``head`` is not text, or None."""
    text = head.decode("utf-8", "replace")
    share = (text.count("\ufffd") + text.count("\x00")) / max(1, len(text))
    if share <= _BINARY_SHARE:
        return None
    if head[1::2].count(0) > len(head) // 4 or head[0::2].count(0) > len(head) // 4:
        return "binary file (NUL bytes), not text; it looks like UTF-16 without a BOM: save it as UTF-8"
    return "binary file (NUL bytes or invalid UTF-8), not text; expected UTF-8 .txt, .jsonl or .csv"


def _recoded(first: bytes, handle: IO[bytes], codec: str) -> Iterator[bytes]:
    """UTF-16/32 (with a BOM) as UTF-8 chunks; undecodable code units become U+FFFD."""
    decoder = codecs.getincrementaldecoder(codec)("replace")
    yield decoder.decode(first).encode("utf-8")
    for chunk in iter(lambda: handle.read(1 << 16), b""):
        yield decoder.decode(chunk).encode("utf-8")
    yield decoder.decode(b"", final=True).encode("utf-8")


def _split_lines(first: bytes, chunks: Iterable[bytes], limit: int) -> Iterator[bytes | None]:
    """Lines of ``first`` + ``chunks``, ended by ``\\n``, ``\\r\\n`` or ``\\r`` (endings dropped).

    A line over ``limit`` bytes is not kept in memory: it is skipped and yields None.
    """
    pending: list[bytes] = []  # the pieces of the line not yet ended
    size, overlong, skip_lf = 0, False, False
    for chunk in itertools.chain((first,), chunks):
        if skip_lf and chunk.startswith(b"\n"):  # the "\n" of a "\r\n" cut between chunks
            chunk = chunk[1:]
        skip_lf = chunk.endswith(b"\r")
        if not chunk:
            continue
        *ended, tail = _NEWLINE.split(chunk)
        if ended:
            pending.append(ended[0])
            ended[0] = b"".join(pending)
            for line in ended:
                yield None if overlong else line
                overlong = False
            pending, size = [], 0
        if tail:
            pending.append(tail)
            size += len(tail)
            if size > limit:
                pending, size, overlong = [], 0, True
    if pending or overlong:
        yield None if overlong else b"".join(pending)


def _decoded_lines(
    raw_lines: Iterable[bytes | None], name: str, bad: Callable[[BadRecord], None]
) -> Iterator[tuple[int, str | None]]:
    """(line number, text) pairs; text is None for a line that is not valid UTF-8 or too long (reported)."""
    for number, raw in enumerate(raw_lines, start=1):
        if raw is None:
            bad(BadRecord(name, number, "line too long to be one record; line skipped"))
            yield number, None
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad(
                BadRecord(
                    name, number, f"invalid UTF-8 at byte {exc.start} of the line; line skipped"
                )
            )
            yield number, None
            continue
        if number == 1:
            text = text.lstrip("\ufeff")
        yield number, text


def _detect_format(source: str, head: bytes) -> str:
    suffix = Path(source).suffix.lower() if source != "-" else ""
    if suffix in SUFFIX_FORMAT:
        return SUFFIX_FORMAT[suffix]
    stripped = head.lstrip()
    if stripped.startswith(b"{"):
        return "jsonl"
    first_line = _NEWLINE.split(stripped, 1)[0].lower()
    if b"abstract" in first_line and (b"," in first_line or b"\t" in first_line):
        return "csv"
    return "txt"


Record = dict[str, Any]
Lines = Iterable[tuple[int, str | None]]


def _txt_records(
    lines: Lines,
    name: str,
    mapping: dict[str, str],
    bad: Callable[[BadRecord], None],
    limits: Limits,
) -> Iterator[tuple[int, Record]]:
    """Paragraphs separated by blank lines; a short first paragraph without a full stop is a header."""
    paragraph: list[str] = []
    size = 0
    start = 0
    broken = False
    first = True

    def flush() -> Iterator[tuple[int, Record]]:
        nonlocal first
        text = " ".join(paragraph)
        is_header = (
            first
            and len(paragraph) == 1
            and len(text) <= 120
            and not text.rstrip().endswith((".", "?", "!"))
        )
        first = False
        if not broken and not is_header:
            yield start, {"abstract": text}

    for number, text in lines:
        if text is None:
            broken = True
            if not paragraph:
                start = number
            paragraph.append("")
            continue
        if text.strip():
            if not paragraph:
                start = number
                size = 0
            if size <= _MAX_PARAGRAPH:  # keep memory bounded
                paragraph.append(text.strip())
                size += len(text)
        elif paragraph:
            yield from flush()
            paragraph, broken = [], False
    if paragraph:
        yield from flush()


def _too_deep(text: str, limit: int) -> bool:
    """Is the JSON in ``text`` nested deeper than ``limit``? (Only scanned when it could be.)"""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for token in _JSON_NESTING.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth -= 1
    return False


def _jsonl_records(
    lines: Lines,
    name: str,
    mapping: dict[str, str],
    bad: Callable[[BadRecord], None],
    limits: Limits,
) -> Iterator[tuple[int, Record]]:
    for number, text in lines:
        if text is None or not text.strip():
            continue
        if _too_deep(text, limits.json_depth):
            bad(
                BadRecord(
                    name,
                    number,
                    f"JSON nested deeper than {limits.json_depth} levels; line skipped",
                )
            )
            continue
        try:  # strict=False: a control character inside a string is cleaned later, not fatal
            obj = json.loads(text, strict=False)
        except json.JSONDecodeError as exc:
            bad(BadRecord(name, number, f"malformed JSON: {exc.msg} at column {exc.colno}"))
            continue
        except (
            ValueError,
            RecursionError,
        ) as exc:  # "Exceeds the limit (4300 digits) ...": a huge number
            bad(BadRecord(name, number, f"malformed JSON: {str(exc).split(':')[0]}"))
            continue
        if not isinstance(obj, dict):
            bad(BadRecord(name, number, f"expected a JSON object, got {type(obj).__name__}"))
            continue
        if mapping["abstract"] not in obj:
            fields = ", ".join(k if k.isprintable() else repr(k) for k in obj)[:300] or "none"
            bad(
                BadRecord(
                    name,
                    number,
                    f"no abstract (field {mapping['abstract']!r} missing; the record has: "
                    f"{fields}); map yours with --field abstract=FIELD",
                )
            )
            continue
        yield number, {ours: obj.get(theirs) for ours, theirs in mapping.items()}


def _csv_records(
    lines: Lines,
    name: str,
    mapping: dict[str, str],
    bad: Callable[[BadRecord], None],
    limits: Limits,
) -> Iterator[tuple[int, Record]]:
    numbered = ((n, t) for n, t in lines if t is not None)
    first = next(numbered, None)
    if first is None:
        return
    dialect = "excel-tab" if first[1].count("\t") > first[1].count(",") else "excel"
    try:
        header = next(csv.reader([first[1]], dialect=dialect))
    except csv.Error as exc:
        bad(BadRecord(name, first[0], f"malformed CSV header: {exc}"))
        return
    header = [h.strip() for h in header]
    columns = _column_index(header, mapping)
    if columns["abstract"] is None:
        bad(
            BadRecord(
                name,
                first[0],
                f"CSV header has no {mapping['abstract']!r} column "
                f"(columns: {', '.join(header)[:500]}); map one with --field abstract=COLUMN",
            )
        )
        return
    # csv handles quoted newlines: feed it lines and track where each record started
    current_line = first[0]

    def feed() -> Iterator[str]:
        nonlocal current_line
        for n, t in numbered:
            current_line = n
            yield t + "\n"  # csv needs the newline to keep line breaks inside quoted cells

    reader = csv.reader(feed(), dialect=dialect)
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            bad(BadRecord(name, current_line, f"malformed CSV: {exc}"))
            continue
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            bad(
                BadRecord(
                    name, current_line, f"CSV row has {len(row)} cells, header has {len(header)}"
                )
            )
            continue
        yield current_line, {ours: row[i] if i is not None else None for ours, i in columns.items()}


def _column_index(header: list[str], mapping: dict[str, str]) -> dict[str, int | None]:
    """Each field's column in ``header``: the column of that exact name, else one whose name differs
    only in case ("Abstract", "ABSTRACT"); None when there is none. A name given twice: the last."""
    exact = {h: i for i, h in enumerate(header)}
    folded: dict[str, int] = {}
    for i, h in enumerate(header):
        folded[h.casefold()] = i
    return {
        ours: exact.get(theirs, folded.get(theirs.casefold())) for ours, theirs in mapping.items()
    }
