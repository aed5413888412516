"""Corpus readers: plain text, JSON lines and CSV files -> a stream of :class:`Paper` records.

Reading is streaming (one record at a time) so memory follows the graph, not the corpus. A bad
record never stops the good ones: it is reported through ``on_error`` with its file and line and
counted in :class:`CorpusStats`, unless ``strict`` makes it fatal.
"""

from __future__ import annotations

import contextlib
import csv
import glob
import hashlib
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .errors import BadRecord, CorpusError
from .model import Paper

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

#: Record fields kg understands; only ``abstract`` is required.
FIELDS: tuple[str, ...] = ("id", "title", "abstract", "year", "venue", "authors", "keywords")
SUFFIX_FORMAT = {".txt": "txt", ".text": "txt", ".md": "txt", ".jsonl": "jsonl", ".ndjson": "jsonl",
                 ".json": "jsonl", ".csv": "csv", ".tsv": "csv"}
DEFAULT_MAX_CHARS = 100_000
_SNIFF_BYTES = 8192

_EMPHASIS = re.compile(r"(?<![\w\\])_(?=\S)([^_\n]{1,300}?)(?<=\S)_(?!\w)")
_WS = re.compile(r"\s+")
_STAR_EMPHASIS = re.compile(r"(?<![\w*\\])\*{1,2}(?=\S)([^*\n]{1,300}?)(?<=\S)\*{1,2}(?![\w*])")
_LATEX_FORMAT = r"\\(?:textbf|textit|texttt|textsc|textrm|emph|mathbf|mathrm|mathit|mathsf|text|underline)"
_LATEX_WRAPPED = re.compile(r"\$\s*" + _LATEX_FORMAT + r"\{([^{}$]*)\}\s*\$")
_LATEX_CMD = re.compile(_LATEX_FORMAT + r"\{([^{}$]*)\}")
_LATEX_TIE = re.compile(r"(?<=[A-Za-z])~(?=[(\[A-Za-z])")  # "Learning~(RL)": a non-breaking space
_LATEX_ESCAPE = re.compile(r"\\([%&#_$])")  # "39\%"


@dataclass
class CorpusStats:
    """What a read saw: records read, papers yielded, duplicates merged, records skipped."""

    files: int = 0
    records: int = 0
    papers: int = 0
    duplicates: int = 0
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


def normalise_abstract(text: str) -> str:
    """Collapse whitespace; drop markdown emphasis and LaTeX text formatting (``_SSoT_``,
    ``$\\textbf{FARTrack}$`` -> ``SSoT``, ``FARTrack``), LaTeX ties and escapes (``Learning~(RL)``,
    ``39\\%`` -> ``Learning (RL)``, ``39%``).

    Extraction and char offsets refer to this normalised text, so it is what the graph stores.
    """
    text = _LATEX_WRAPPED.sub(r"\1", text)
    text = _LATEX_CMD.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\1", text)
    text = _STAR_EMPHASIS.sub(r"\1", text)
    text = _LATEX_ESCAPE.sub(r"\1", _LATEX_TIE.sub(" ", text))
    return _WS.sub(" ", text).strip()


def paper_id_for(abstract: str) -> str:
    """A stable id for a paper without one: a hash of its case-folded, whitespace-collapsed abstract."""
    key = _WS.sub(" ", abstract.casefold()).strip()
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


_CUE = re.compile(r"\b(?:introduce|propose|present|develop|call|name|dub|term|release|construct|curate)(?:s|d)?\b")
_ACRONYM_AFTER_CUE = re.compile(r"^(?:(?!\b(?:to|for|of the)\b)[^.;]){0,100}?\(([A-Za-z0-9\-+.]*[A-Z][A-Za-z0-9\-+.]*)\)")
_NAME_AFTER_CUE = re.compile(
    r"^\s+(?:(?:a|an|the|our)\s+)?(?:[a-z][\w-]*\s+){0,3}?"
    r"([A-Z][\w\-+.]*(?:\s+(?:of|for|to|and|in|on|with)?\s*[A-Z][\w\-+.]*){0,5})"
    r"(?=\s*(?:[,(:;.]|\u2014|\s-{1,2}\s|\s+(?:is|that|which|to|for|as|in|on|with|by)\b))"
)


_STUDY_CUE = re.compile(
    r"\b(?:we|this (?:paper|work|study)|here,? we)\s+(?:first\s+|further\s+|then\s+)?"
    r"(?:propose|introduce|present|develop|study|investigate|address|tackle|consider|explore|analy[sz]e|revisit|examine|design)s?\b\s+",
    re.I,
)
_PROBLEM_OF = re.compile(r"^(?:(?:a|an|the)\s+)?(?:(?:open\s+|important\s+|fundamental\s+|key\s+)?(?:problem|challenge|task|question|issue)s?\s+of\s+)", re.I)
_LEADING = re.compile(r"^(?:(?:a|an|the|our|this|these|two|three|several|new|novel|simple|general|unified|principled|first)\s+)+", re.I)
#: Words that end the noun phrase of what a paper proposes or studies.
_NP_END = frozenset("""that which where whose who to by via using through while when is are was were can
    could will would that, we our it its this these based achieves achieve enables enable improves
    improve allows allow yields yield leverages leverage called named termed dubbed than comprising
    consisting including containing featuring""".split())
#: Heads that name no paper ("a major barrier", "the central challenge").
_GENERIC_HEAD = frozenset("""challenge challenges barrier barriers problem problems bottleneck limitation
    limitations issue issues question questions gap goal task way need""".split())
_SMALL = frozenset("a an the of for and or in on with to from via by at as vs".split())
#: First words of a sentence that do not begin the name of a topic ("In the era of ...").
_NOT_A_TOPIC = frozenset("""in inspired recent recently previous prior several many most some existing current
    although while despite as with to over we our this these it there however given since because when
    if for from by on at one a an the such modern today conventional traditional typical""".split())
_TOPIC_VERB = re.compile(
    r"^((?:[A-Za-z][\w\-]*\s+){0,5}?[A-Za-z][\w\-]*(?:\s+\([A-Za-z0-9\-]+\))?)\s+"
    r"(?:is|are|has|have|aims|aim|remains|remain|plays|play|enables|enable|offers|offer|suffers|suffer|"
    r"struggles|struggle|relies|rely|requires|require|faces|face|seeks|seek|promises|provides|provide|"
    r"shows|show|holds|hold|lies|lie)\b"
)


def _title_case(words: list[str]) -> str:
    out = []
    for i, w in enumerate(words):
        if any(c.isupper() for part in w.split("-") for c in part[1:]) or (i and w.lower() in _SMALL):
            out.append(w)
        else:
            out.append("-".join(part[:1].upper() + part[1:] for part in w.split("-")))
    return " ".join(out)


def _noun_phrase(text: str, limit: int = 9) -> list[str]:
    """The words of ``text`` up to the end of its first noun phrase (a stop word, a clause word or
    punctuation), at most ``limit``."""
    words: list[str] = []
    for raw in text.split():
        word = raw.rstrip(",.;:)")
        if not word or word.lower() in _NP_END or word.startswith("("):
            break
        words.append(word)
        if raw != word or len(words) >= limit:
            break
    while words and words[-1].lower() in _SMALL:
        words.pop()
    return words


def derive_label(abstract: str, n_words: int = 8) -> str:
    """A short display name for a paper without a title, that reads as a title.

    In order: the name the abstract coins ("we introduce String Seed of Thought (SSoT)" ->
    "SSoT", "we propose RECALL, a ..." -> "RECALL"); else the noun phrase of what it proposes or
    studies, title-cased ("we address the problem of fine-tuning diffusion models for ..." ->
    "Fine-Tuning Diffusion Models for ..."); else the topic its first sentence is about
    ("Dataset distillation aims to ..." -> "Dataset Distillation"); else its first ``n_words``
    words.
    """
    for cue in _CUE.finditer(abstract[:2000]):
        tail = abstract[cue.end():]
        acronym = _ACRONYM_AFTER_CUE.match(tail)
        if acronym and len(acronym.group(1)) >= 2:
            return acronym.group(1)
        name = _NAME_AFTER_CUE.match(tail)
        if name:
            return name.group(1).strip(" .")
    for cue in _STUDY_CUE.finditer(abstract[:2000]):
        tail = _LEADING.sub("", _PROBLEM_OF.sub("", _LEADING.sub("", abstract[cue.end():])))
        words = _noun_phrase(tail)
        if len(words) >= 2 and words[0].lower() not in _SMALL | {"and", "or", "that", "which", "two", "it"} \
                and not (len(words) <= 3 and words[-1].lower() in _GENERIC_HEAD):
            return _title_case(words)
    for sentence in re.split(r"(?<=[.!?])\s+", abstract[:1500])[:2]:
        body = re.sub(r"^(?:the|a|an)\s+", "", sentence.strip(), flags=re.I)
        topic = _TOPIC_VERB.match(body)
        if topic:
            words = topic.group(1).split()
            if words[0].lower() not in _NOT_A_TOPIC and not (len(words) <= 3 and words[-1].lower() in _GENERIC_HEAD):
                return _title_case(words)
    words = abstract.split()
    label = " ".join(words[:n_words])
    return label + ("\u2026" if len(words) > n_words else "")


def parse_field_map(pairs: Iterable[str]) -> dict[str, str]:
    """Parse ``--field abstract=summary`` options into ``{"abstract": "summary"}``."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        ours, sep, theirs = pair.partition("=")
        ours, theirs = ours.strip(), theirs.strip()
        if not sep or not ours or not theirs:
            raise CorpusError(f"--field {pair!r}: expected FIELD=COLUMN, for example abstract=summary")
        if ours not in FIELDS:
            raise CorpusError(f"--field {pair!r}: unknown field {ours!r}; known: {', '.join(FIELDS)}")
        mapping[ours] = theirs
    return mapping


def expand_inputs(inputs: Iterable[str | Path]) -> list[str]:
    """Files, directories (read recursively, known suffixes only), globs, and ``-`` for stdin."""
    out: list[str] = []
    for item in inputs:
        text = str(item)
        if text == "-":
            out.append("-")
            continue
        path = Path(text)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIX_FORMAT)
            if not files:
                raise CorpusError(f"{text}: directory holds no .txt, .jsonl or .csv files")
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
) -> Iterator[Paper]:
    """Yield one :class:`Paper` per distinct abstract in ``inputs``.

    Args:
        inputs: paths, directories, globs, or ``"-"`` for standard input.
        fmt: ``auto`` (by suffix, sniffed for stdin), ``txt``, ``jsonl`` or ``csv``.
        fields: our field name -> the column/key holding it in the input.
        strict: raise the first bad record instead of skipping it.
        max_chars: abstracts longer than this are bad records.
        stats: filled in while reading.
        on_error: called with each skipped record's error.

    Raises:
        CorpusError: an input is missing, or (``strict``) a record is bad.
    """
    stats = stats if stats is not None else CorpusStats()
    seen: dict[str, str] = {}  # paper id / abstract hash -> first source
    mapping = {name: name for name in FIELDS} | (fields or {})

    def bad(err: BadRecord) -> None:
        if strict:
            raise err
        stats.skipped += 1
        stats.errors.append(str(err))
        if on_error is not None:
            on_error(err)

    for source in expand_inputs(inputs):
        stats.files += 1
        try:
            handle, name = _open(source, stdin)
        except OSError as exc:
            bad(BadRecord(source, None, f"cannot read: {exc.strerror or exc}"))
            continue
        with handle as handle:
            raw = handle.read(_SNIFF_BYTES)
            if not raw.strip():
                bad(BadRecord(name, None, "empty file, no records"))
                continue
            if b"\x00" in raw:
                bad(BadRecord(name, None, "binary file (NUL bytes), not text; expected .txt, .jsonl or .csv"))
                continue
            kind = fmt if fmt != "auto" else _detect_format(source, raw)
            lines = _decoded_lines(_chain(raw, handle), name, bad)
            records = {"txt": _txt_records, "jsonl": _jsonl_records, "csv": _csv_records}[kind]
            for line_no, record in records(lines, name, mapping, bad):
                stats.records += 1
                paper = _to_paper(record, name, line_no, max_chars, bad)
                if paper is None:
                    continue
                dedup_key = paper_id_for(paper.abstract)
                if paper.id in seen or dedup_key in seen:
                    stats.duplicates += 1
                    continue
                seen[paper.id] = seen[dedup_key] = paper.source
                stats.papers += 1
                yield paper


def _open(source: str, stdin: IO[bytes] | None) -> tuple[Any, str]:
    """A context manager over the byte stream, and the name errors use; stdin is never closed."""
    if source == "-":
        return contextlib.nullcontext(stdin if stdin is not None else sys.stdin.buffer), "<stdin>"
    return open(source, "rb"), source


def _chain(first: bytes, handle: IO[bytes]) -> Iterator[bytes]:
    """Lines of ``first`` + the rest of ``handle``, split on ``\\n`` only."""
    rest = first
    for chunk in iter(lambda: handle.read(1 << 16), b""):
        rest += chunk
        *lines, rest = rest.split(b"\n")
        yield from (line + b"\n" for line in lines)
    if rest:
        *lines, last = rest.split(b"\n")
        yield from (line + b"\n" for line in lines)
        if last:
            yield last


def _decoded_lines(raw_lines: Iterable[bytes], name: str, bad: Callable[[BadRecord], None]) -> Iterator[tuple[int, str | None]]:
    """(line number, text) pairs; text is None for a line that is not valid UTF-8 (reported)."""
    for number, raw in enumerate(raw_lines, start=1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad(BadRecord(name, number, f"invalid UTF-8 at byte {exc.start} of the line; line skipped"))
            yield number, None
            continue
        if number == 1:
            text = text.lstrip("\ufeff")
        yield number, text.rstrip("\r\n")


def _detect_format(source: str, head: bytes) -> str:
    suffix = Path(source).suffix.lower() if source != "-" else ""
    if suffix in SUFFIX_FORMAT:
        return SUFFIX_FORMAT[suffix]
    stripped = head.lstrip()
    if stripped.startswith(b"{"):
        return "jsonl"
    first_line = stripped.split(b"\n", 1)[0].lower()
    if b"abstract" in first_line and (b"," in first_line or b"\t" in first_line):
        return "csv"
    return "txt"


Record = dict[str, Any]


def _txt_records(lines: Iterable[tuple[int, str | None]], name: str, mapping: dict[str, str],
                 bad: Callable[[BadRecord], None]) -> Iterator[tuple[int, Record]]:
    """Paragraphs separated by blank lines; a short first paragraph without a full stop is a header."""
    paragraph: list[str] = []
    start = 0
    broken = False
    first = True

    def flush() -> Iterator[tuple[int, Record]]:
        nonlocal first
        text = " ".join(paragraph)
        is_header = first and len(paragraph) == 1 and len(text) <= 120 and not text.rstrip().endswith((".", "?", "!"))
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
            paragraph.append(text.strip())
        elif paragraph:
            yield from flush()
            paragraph, broken = [], False
    if paragraph:
        yield from flush()


def _jsonl_records(lines: Iterable[tuple[int, str | None]], name: str, mapping: dict[str, str],
                   bad: Callable[[BadRecord], None]) -> Iterator[tuple[int, Record]]:
    for number, text in lines:
        if text is None or not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            bad(BadRecord(name, number, f"malformed JSON: {exc.msg} at column {exc.colno}"))
            continue
        if not isinstance(obj, dict):
            bad(BadRecord(name, number, f"expected a JSON object, got {type(obj).__name__}"))
            continue
        yield number, {ours: obj.get(theirs) for ours, theirs in mapping.items()}


def _csv_records(lines: Iterable[tuple[int, str | None]], name: str, mapping: dict[str, str],
                 bad: Callable[[BadRecord], None]) -> Iterator[tuple[int, Record]]:
    numbered = ((n, t) for n, t in lines if t is not None)
    first = next(numbered, None)
    if first is None:
        return
    dialect = "excel-tab" if first[1].count("\t") > first[1].count(",") else "excel"
    header = next(csv.reader([first[1]], dialect=dialect))
    header = [h.strip() for h in header]
    if mapping["abstract"] not in header:
        bad(BadRecord(name, first[0], f"CSV header has no {mapping['abstract']!r} column "
                      f"(columns: {', '.join(header)}); map one with --field abstract=COLUMN"))
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
            bad(BadRecord(name, current_line, f"CSV row has {len(row)} cells, header has {len(header)}"))
            continue
        values = dict(zip(header, row))
        yield current_line, {ours: values.get(theirs) for ours, theirs in mapping.items()}


def _as_list(value: Any) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        parts = value.split(";") if ";" in value else value.split(",") if "," in value else [value]
        return tuple(p.strip() for p in parts if p.strip())
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return (str(value),)


def _as_year(value: Any) -> int | None:
    if value is None or value == "":
        return None
    match = re.search(r"\b(1[89]\d\d|2\d\d\d)\b", str(value))
    if not match:
        raise ValueError(f"year {value!r} is not a year")
    return int(match.group(1))


def _to_paper(record: Record, name: str, line: int, max_chars: int,
              bad: Callable[[BadRecord], None]) -> Paper | None:
    abstract = record.get("abstract")
    if not isinstance(abstract, str) or not abstract.strip():
        bad(BadRecord(name, line, "no abstract (field 'abstract' missing or empty)"))
        return None
    if len(abstract) > max_chars:
        bad(BadRecord(name, line, f"abstract is {len(abstract):,} characters, over the {max_chars:,} limit "
                      "(raise it with --max-chars)"))
        return None
    abstract = normalise_abstract(abstract)
    try:
        year = _as_year(record.get("year"))
    except ValueError as exc:
        bad(BadRecord(name, line, str(exc)))
        return None
    given_id = record.get("id")
    pid = str(given_id).strip() if given_id not in (None, "") else paper_id_for(abstract)
    title = record.get("title")
    title = normalise_abstract(str(title)) if title not in (None, "") else None
    venue = record.get("venue")
    return Paper(
        id=pid,
        abstract=abstract,
        title=title,
        label=title or derive_label(abstract),
        title_derived=title is None,
        year=year,
        venue=str(venue).strip() if venue not in (None, "") else None,
        authors=_as_list(record.get("authors")),
        keywords=_as_list(record.get("keywords")),
        source=f"{name}:{line}",
    )
