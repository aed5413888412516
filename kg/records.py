"""One input record -> one :class:`Paper`: field types, limits and text cleaning, in one place.

Every string of a record is cleaned here, once, before anything else sees it: control characters
(C0 but tab, newline and carriage return; DEL; C1), lone surrogates and the non-characters U+FFFE and
U+FFFF are removed and counted, so every export (JSON, GraphML's XML, the page, Neo4j) can carry the
text as it is. A record that breaks a rule (a field of the wrong type, a field over its limit) is a
:class:`BadRecord` naming the field and the limit; the readers report it and go on.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from typing import Any

from .errors import BadRecord, RecordWarning
from .model import Paper

__all__ = [
    "FIELDS",
    "Limits",
    "LIMITS",
    "clean_text",
    "normalise_abstract",
    "paper_id_for",
    "derive_label",
    "to_paper",
]

#: Record fields kg understands; only ``abstract`` is required.
FIELDS: tuple[str, ...] = ("id", "title", "abstract", "year", "venue", "authors", "keywords")


@dataclass(frozen=True)
class Limits:
    """The documented limits on one record (README, "Bad input"); the abstract's is ``--max-chars``.

    ``id_chars`` keeps every node id well inside what a Neo4j index key holds (8,167 bytes of UTF-8:
    512 characters of up to 4 bytes, plus the ``paper:`` prefix); ``mention_chars`` does the same for
    entity ids, which are made from mention text.
    """

    id_chars: int = 512
    title_chars: int = 2_000
    field_chars: int = 1_000  # venue, the year as written, one author or keyword
    list_items: int = 1_000  # authors, keywords
    json_depth: int = 32  # nesting of one JSON line
    mention_chars: int = 300  # longer "mentions" are dropped by the build


LIMITS = Limits()

_REMOVED = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def clean_text(text: str) -> tuple[str, int]:
    """``text`` without control characters, lone surrogates, U+FFFE and U+FFFF, and how many went.

    >>> clean_text("Foo\\x00Net\\ud800 on \\x1bCIFAR")
    ('FooNet on CIFAR', 3)
    """
    return _REMOVED.subn("", text)


_EMPHASIS = re.compile(r"(?<![\w\\])_(?=\S)([^_\n]{1,300}?)(?<=\S)_(?!\w)")
_WS = re.compile(r"\s+")
_STAR_EMPHASIS = re.compile(r"(?<![\w*\\])\*{1,2}(?=\S)([^*\n]{1,300}?)(?<=\S)\*{1,2}(?![\w*])")
_LATEX_FORMAT = (
    r"\\(?:textbf|textit|texttt|textsc|textrm|emph|mathbf|mathrm|mathit|mathsf|text|underline)"
)
_LATEX_WRAPPED = re.compile(r"\$\s*" + _LATEX_FORMAT + r"\{([^{}$]*)\}\s*\$")
_LATEX_CMD = re.compile(_LATEX_FORMAT + r"\{([^{}$]*)\}")
_LATEX_TIE = re.compile(r"(?<=[A-Za-z])~(?=[(\[A-Za-z])")  # "Learning~(RL)": a non-breaking space
_LATEX_ESCAPE = re.compile(r"\\([%&#_$])")  # "39\%"


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
    key = " ".join(abstract.casefold().split())  # the same as collapsing r"\s+", 3x faster
    return hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


_CUE = re.compile(
    r"\b(?:introduce|propose|present|develop|call|name|dub|term|release|construct|curate)(?:s|d)?\b"
)
_ACRONYM_AFTER_CUE = re.compile(
    r"^(?:(?!\b(?:to|for|of the)\b)[^.;]){0,100}?\(([A-Za-z0-9\-+.]*[A-Z][A-Za-z0-9\-+.]*)\)"
)
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
_PROBLEM_OF = re.compile(
    r"^(?:(?:a|an|the)\s+)?(?:(?:open\s+|important\s+|fundamental\s+|key\s+)?(?:problem|challenge|task|question|issue)s?\s+of\s+)",
    re.I,
)
_LEADING = re.compile(
    r"^(?:(?:a|an|the|our|this|these|two|three|several|new|novel|simple|general|unified|principled|first)\s+)+",
    re.I,
)
#: Words that end the noun phrase of what a paper proposes or studies.
_NP_END = frozenset(
    """that which where whose who to by via using through while when is are was were can
    could will would that, we our it its this these based achieves achieve enables enable improves
    improve allows allow yields yield leverages leverage called named termed dubbed than comprising
    consisting including containing featuring""".split()
)
#: Heads that name no paper ("a major barrier", "the central challenge").
_GENERIC_HEAD = frozenset(
    """challenge challenges barrier barriers problem problems bottleneck limitation
    limitations issue issues question questions gap goal task way need""".split()
)
_SMALL = frozenset("a an the of for and or in on with to from via by at as vs".split())
#: First words of a sentence that do not begin the name of a topic ("In the era of ...").
_NOT_A_TOPIC = frozenset(
    """in inspired recent recently previous prior several many most some existing current
    although while despite as with to over we our this these it there however given since because when
    if for from by on at one a an the such modern today conventional traditional typical""".split()
)
_TOPIC_VERB = re.compile(
    r"^((?:[A-Za-z][\w\-]*\s+){0,5}?[A-Za-z][\w\-]*(?:\s+\([A-Za-z0-9\-]+\))?)\s+"
    r"(?:is|are|has|have|aims|aim|remains|remain|plays|play|enables|enable|offers|offer|suffers|suffer|"
    r"struggles|struggle|relies|rely|requires|require|faces|face|seeks|seek|promises|provides|provide|"
    r"shows|show|holds|hold|lies|lie)\b"
)


def _title_case(words: list[str]) -> str:
    out = []
    for i, w in enumerate(words):
        if any(c.isupper() for part in w.split("-") for c in part[1:]) or (
            i and w.lower() in _SMALL
        ):
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
        tail = abstract[cue.end() :]
        acronym = _ACRONYM_AFTER_CUE.match(tail)
        if acronym and len(acronym.group(1)) >= 2:
            return acronym.group(1)
        name = _NAME_AFTER_CUE.match(tail)
        if name:
            return name.group(1).strip(" .")
    for cue in _STUDY_CUE.finditer(abstract[:2000]):
        tail = _LEADING.sub("", _PROBLEM_OF.sub("", _LEADING.sub("", abstract[cue.end() :])))
        words = _noun_phrase(tail)
        if (
            len(words) >= 2
            and words[0].lower() not in _SMALL | {"and", "or", "that", "which", "two", "it"}
            and not (len(words) <= 3 and words[-1].lower() in _GENERIC_HEAD)
        ):
            return _title_case(words)
    for sentence in re.split(r"(?<=[.!?])\s+", abstract[:1500])[:2]:
        body = re.sub(r"^(?:the|a|an)\s+", "", sentence.strip(), flags=re.I)
        topic = _TOPIC_VERB.match(body)
        if topic:
            words = topic.group(1).split()
            if words[0].lower() not in _NOT_A_TOPIC and not (
                len(words) <= 3 and words[-1].lower() in _GENERIC_HEAD
            ):
                return _title_case(words)
    words = abstract.split()
    label = " ".join(words[:n_words])
    return label + ("\u2026" if len(words) > n_words else "")


def _type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", bool: "true/false"}.get(
        type(value), type(value).__name__
    )


class _Reader:
    """Checks and cleans the fields of one record; ``removed`` counts the characters cleaned away."""

    def __init__(self, source: str, line: int, limits: Limits):
        self.source, self.line, self.limits, self.removed = source, line, limits, 0
        self.warnings: list[RecordWarning] = []

    def bad(self, problem: str) -> BadRecord:
        return BadRecord(self.source, self.line, problem)

    def text(self, field: str, value: Any, limit: int) -> str | None:
        """A scalar field as cleaned text (numbers as written), None when missing or blank."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.bad(f"field {field!r} is {_type_name(value)}; expected text or a number")
        if isinstance(value, float) and not math.isfinite(value):
            raise self.bad(f"field {field!r} is {value}; expected text or a finite number")
        if isinstance(value, int) and value.bit_length() > 64:
            raise self.bad(
                f"field {field!r} is a number of {value.bit_length():,} bits; expected at most 64"
            )
        text, removed = clean_text(value if isinstance(value, str) else repr(value))
        self.removed += removed
        if len(text) > limit:
            raise self.bad(f"field {field!r} is {len(text):,} characters, over the {limit:,} limit")
        return text if text.strip() else None

    def items(self, field: str, value: Any) -> tuple[str, ...]:
        """authors / keywords: a list of scalars, or one string split at ';' (else ',')."""
        if value is None or value == "":
            return ()
        if isinstance(value, str):
            text = self.text(field, value, self.limits.field_chars * self.limits.list_items) or ""
            parts = text.split(";") if ";" in text else text.split(",") if "," in text else [text]
        elif isinstance(value, list):
            parts = [
                self.text(f"{field}[{i}]", v, self.limits.field_chars) or ""
                for i, v in enumerate(value)
            ]
        else:
            parts = [self.text(field, value, self.limits.field_chars) or ""]
        parts = [p.strip() for p in parts if p.strip()]
        if len(parts) > self.limits.list_items:
            raise self.bad(
                f"field {field!r} has {len(parts):,} items, over the {self.limits.list_items:,} limit"
            )
        if any(len(p) > self.limits.field_chars for p in parts):
            raise self.bad(
                f"field {field!r} has an item over the {self.limits.field_chars:,}-character limit"
            )
        return tuple(parts)

    def year(self, value: Any) -> int | None:
        if isinstance(value, int) and not isinstance(value, bool):
            if 1800 <= value <= 2999:
                return value
            shown = value if value.bit_length() <= 64 else f"of {value.bit_length():,} bits"
            raise self.bad(f"year {shown} is not a year (1800-2999)")
        text = self.text("year", value, self.limits.field_chars)
        if text is None:
            return None
        match = re.search(r"\b(1[89]\d\d|2\d\d\d)\b", text)
        if not match:
            raise self.bad(f"year {text[:40]!r} is not a year")
        return int(match.group(1))


def to_paper(
    record: dict[str, Any], source: str, line: int, *, max_chars: int, limits: Limits = LIMITS
) -> tuple[Paper, int, list[RecordWarning]]:
    """The paper of one record, how many characters were cleaned out of it, and what a rule changed.

    Rules: ``abstract`` is required text of at most ``max_chars`` characters; ``id``, ``title``,
    ``venue`` and ``year`` are text or numbers (``7`` and ``"7"`` are the same id; an id of only
    whitespace counts as none, so the paper gets the hash of its abstract); ``authors`` and
    ``keywords`` are lists or strings separated by ``;`` or ``,``. Objects or lists where text is
    expected, and fields over their limit, make the record bad.

    Raises:
        BadRecord: the record breaks a rule; the message names the field and the limit.
    """
    r = _Reader(source, line, limits)
    abstract = record.get("abstract")
    if abstract is None or (isinstance(abstract, str) and not abstract.strip()):
        raise r.bad("no abstract (field 'abstract' missing or empty)")
    if not isinstance(abstract, str):
        raise r.bad(f"field 'abstract' is {_type_name(abstract)}; expected text")
    if len(abstract) > max_chars:
        raise r.bad(
            f"abstract is {len(abstract):,} characters, over the {max_chars:,} limit "
            "(raise it with --max-chars)"
        )
    abstract, removed = clean_text(abstract)
    r.removed += removed
    abstract = normalise_abstract(abstract)
    if not abstract:
        raise r.bad("no abstract (field 'abstract' holds only control characters)")
    year = r.year(record.get("year"))
    given_id = r.text("id", record.get("id"), limits.id_chars)
    if given_id is None and isinstance(record.get("id"), str) and record["id"]:
        r.warnings.append(
            RecordWarning(
                source,
                line,
                f"id {record['id']!r} is only whitespace or control "
                "characters; the paper gets an id from its abstract",
            )
        )
    title = r.text("title", record.get("title"), limits.title_chars)
    title = normalise_abstract(title) if title is not None else None
    venue = r.text("venue", record.get("venue"), limits.field_chars)
    paper = Paper(
        id=given_id.strip() if given_id is not None else paper_id_for(abstract),
        abstract=abstract,
        title=title,
        label=title or derive_label(abstract),
        title_derived=title is None,
        year=year,
        venue=venue.strip() if venue is not None else None,
        authors=r.items("authors", record.get("authors")),
        keywords=r.items("keywords", record.get("keywords")),
        source=f"{source}:{line}",
    )
    return paper, r.removed, r.warnings
