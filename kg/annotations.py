"""In-domain gold: paper abstracts annotated by reading (``data/annotations/``).

One JSON object a line::

    {"id": "h7qdCvhMdb", "source": "iclr2026_submissions.jsonl", "text": "<abstract>",
     "entities": [{"name": "String Seed of Thought", "label": "METHOD", "role": "proposed",
                   "mentions": [[13, 35], [37, 41]]}],
     "annotator": "a", "pass": 2}

``mentions`` are ``[start, end)`` character offsets into ``text``. The rules an annotator follows are in
``data/annotations/GUIDELINES.md``. This module reads and checks that format (:func:`load`,
:func:`validate_record`) and turns an annotator's draft, which lists each entity's surface forms, into
offsets (:func:`resolve_draft`): every occurrence of a form is a mention, longest form first.

``python scripts/annotations.py validate FILE...`` checks files; ``resolve DRAFT --batch BATCH -o OUT``
writes records from a draft and prints what looks like a missed occurrence.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .errors import KgError

LABELS = ("METHOD", "DATASET", "TASK", "METRIC")
ROLES = {
    "METHOD": ("proposed", "used"),
    "DATASET": ("proposed", "used"),
    "TASK": (None, "proposed"),
    "METRIC": (None, "proposed"),
}


class AnnotationError(KgError, ValueError):
    """A record that breaks the format: the message names file, line and problem."""


@dataclass
class GoldEntity:
    name: str
    label: str
    role: str | None
    mentions: list[tuple[int, int]]

    def surfaces(self, text: str) -> list[str]:
        return [text[s:e] for s, e in self.mentions]


@dataclass
class GoldAbstract:
    id: str
    source: str
    text: str
    entities: list[GoldEntity]
    annotator: str = ""
    passes: int = 2
    extra: dict = field(default_factory=dict)

    def spans(self) -> list[tuple[int, int, str]]:
        """Every mention as ``(start, end, label)``, in text order."""
        return sorted((s, e, ent.label) for ent in self.entities for s, e in ent.mentions)

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "source": self.source,
            "text": self.text,
            "entities": [
                {
                    "name": e.name,
                    "label": e.label,
                    "role": e.role,
                    "mentions": [list(m) for m in e.mentions],
                }
                for e in self.entities
            ],
            "annotator": self.annotator,
            "pass": self.passes,
            **self.extra,
        }


def _word_char(ch: str) -> bool:
    return ch.isalnum()


def validate_record(obj: object, where: str) -> GoldAbstract:
    """Check one parsed line and return it typed; raise AnnotationError naming ``where``."""

    def fail(msg: str) -> AnnotationError:
        return AnnotationError(f"{where}: {msg}")

    if not isinstance(obj, dict):
        raise fail("a record must be a JSON object")
    for key, kind in (("id", str), ("text", str), ("entities", list)):
        if not isinstance(obj.get(key), kind):
            raise fail(f"field {key!r} missing or not a {kind.__name__}")
    text: str = obj["text"]
    entities: list[GoldEntity] = []
    taken: list[tuple[int, int, str]] = []
    for i, ent in enumerate(obj["entities"]):
        tag = f"entity {i}"
        if not isinstance(ent, dict):
            raise fail(f"{tag} is not an object")
        name, label, role, mentions = (
            ent.get("name"),
            ent.get("label"),
            ent.get("role"),
            ent.get("mentions"),
        )
        if not isinstance(name, str) or not name.strip():
            raise fail(f"{tag} has no name")
        tag = f"entity {name!r}"
        if label not in LABELS:
            raise fail(f"{tag}: label {label!r} is not one of {', '.join(LABELS)}")
        if role not in ROLES[label]:
            raise fail(f"{tag}: role {role!r} is not allowed for {label} (allowed: {ROLES[label]})")
        if not isinstance(mentions, list) or not mentions:
            raise fail(f"{tag} has no mentions")
        spans: list[tuple[int, int]] = []
        for m in mentions:
            if not (
                isinstance(m, list)
                and len(m) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in m)
            ):
                raise fail(f"{tag}: mention {m!r} is not [start, end]")
            s, e = m
            if not 0 <= s < e <= len(text):
                raise fail(f"{tag}: mention [{s}, {e}] is outside the text (length {len(text)})")
            surface = text[s:e]
            if surface != surface.strip():
                raise fail(f"{tag}: mention [{s}, {e}] {surface!r} starts or ends with white space")
            if (s > 0 and _word_char(text[s - 1]) and _word_char(text[s])) or (
                e < len(text) and _word_char(text[e - 1]) and _word_char(text[e])
            ):
                raise fail(f"{tag}: mention [{s}, {e}] {surface!r} cuts through a word")
            spans.append((s, e))
            taken.append((s, e, name))
        entities.append(GoldEntity(name=name, label=label, role=role, mentions=sorted(spans)))
    taken.sort()
    for (s1, e1, n1), (s2, e2, n2) in zip(taken, taken[1:]):
        if s2 < e1:
            raise fail(f"mentions overlap: [{s1}, {e1}] of {n1!r} and [{s2}, {e2}] of {n2!r}")
    names = [e.name for e in entities]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise fail(f"entity names repeated: {sorted(dup)}")
    extra = {
        k: v
        for k, v in obj.items()
        if k not in {"id", "source", "text", "entities", "annotator", "pass"}
    }
    return GoldAbstract(
        id=obj["id"],
        source=str(obj.get("source", "")),
        text=text,
        entities=entities,
        annotator=str(obj.get("annotator", "")),
        passes=int(obj.get("pass", 2) or 0),
        extra=extra,
    )


def iter_records(path: str | Path) -> Iterator[GoldAbstract]:
    """Read and validate one JSON-lines file; the first bad line raises AnnotationError."""
    path = Path(path)
    seen: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise AnnotationError(f"{where}: not JSON ({exc.msg})") from None
            rec = validate_record(obj, where)
            if rec.id in seen:
                raise AnnotationError(f"{where}: id {rec.id!r} appears twice in this file")
            seen.add(rec.id)
            yield rec


def load(paths: Iterable[str | Path]) -> list[GoldAbstract]:
    """Every record of the given files (folders: their ``*.jsonl``), validated."""
    out: list[GoldAbstract] = []
    for p in paths:
        p = Path(p)
        files = sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
        for f in files:
            out.extend(iter_records(f))
    return out


def project(
    text: str, target: str, spans: Iterable[tuple[int, int]]
) -> list[tuple[int, int] | None]:
    """Map ``[start, end)`` spans of ``text`` onto ``target``, a copy with markup dropped and white
    space collapsed (``kg.corpus.normalise_abstract``): what kg extracts from. A span whose first or
    last character was dropped maps to None.

    >>> project("the  _SSoT_ prompt", "the SSoT prompt", [(6, 10), (0, 3), (5, 11)])
    [(4, 8), (0, 3), None]
    """
    from difflib import SequenceMatcher

    where: dict[int, int] = {}
    for a, b, size in SequenceMatcher(None, text, target, autojunk=False).get_matching_blocks():
        for k in range(size):
            where[a + k] = b + k
    out: list[tuple[int, int] | None] = []
    for s, e in spans:
        if s in where and e - 1 in where:
            out.append((where[s], where[e - 1] + 1))
        else:
            out.append(None)
    return out


def stats(records: Iterable[GoldAbstract]) -> dict:
    """Counts of a corpus: abstracts, entities and mentions per label, and roles."""
    out: dict = {"abstracts": 0, "entities": {}, "mentions": {}, "proposed": {}, "empty": 0}
    for rec in records:
        out["abstracts"] += 1
        out["empty"] += not rec.entities
        for ent in rec.entities:
            out["entities"][ent.label] = out["entities"].get(ent.label, 0) + 1
            out["mentions"][ent.label] = out["mentions"].get(ent.label, 0) + len(ent.mentions)
            if ent.role == "proposed":
                out["proposed"][ent.label] = out["proposed"].get(ent.label, 0) + 1
    return out


# -- drafting: surface forms -> offsets ---------------------------------------------------------


def _occurrences(text: str, form: str) -> list[tuple[int, int]]:
    """Where ``form`` occurs in ``text`` as whole words (no letter or digit glued on either side)."""
    out = []
    for m in re.finditer(re.escape(form), text):
        s, e = m.span()
        if s > 0 and _word_char(text[s - 1]) and _word_char(text[s]):
            continue
        if e < len(text) and _word_char(text[e - 1]) and _word_char(text[e]):
            continue
        out.append((s, e))
    return out


def resolve_draft(text: str, entities: list[dict]) -> tuple[list[dict], list[str], list[str]]:
    """Turn ``[{"name", "label", "role", "forms": [...]}]`` into entities with mentions.

    Every whole-word occurrence of a form is a mention; where forms overlap the longer wins (so
    "time series (TS) forecasting" swallows its "TS"). An entity may give ``"mentions"`` itself
    instead of forms. Returns (entities, errors, warnings); warnings point at likely misses: a form's
    other casing, or a form glued into a longer word, that no mention covers.
    """
    errors: list[str] = []
    warnings: list[str] = []
    candidates: list[tuple[int, int, int]] = []  # (start, end, entity index)
    for i, ent in enumerate(entities):
        if "mentions" in ent and ent["mentions"]:
            for s, e in ent["mentions"]:
                candidates.append((s, e, i))
            continue
        forms = ent.get("forms") or [ent.get("name", "")]
        for form in forms:
            if not form or form != form.strip():
                errors.append(
                    f"{ent.get('name')!r}: form {form!r} is empty or has white space at its ends"
                )
                continue
            occ = _occurrences(text, form)
            if not occ:
                errors.append(
                    f"{ent.get('name')!r}: form {form!r} does not occur in the text as whole words"
                )
            candidates.extend((s, e, i) for s, e in occ)
    # longest first, then leftmost; drop exact duplicates (two entities listing one form) with an error
    chosen: list[tuple[int, int, int]] = []
    by_span: dict[tuple[int, int], int] = {}
    for s, e, i in sorted(set(candidates), key=lambda c: (-(c[1] - c[0]), c[0], c[2])):
        if (s, e) in by_span and by_span[(s, e)] != i:
            errors.append(
                f"{text[s:e]!r} at [{s}, {e}] is a form of both {entities[by_span[(s, e)]].get('name')!r} and {entities[i].get('name')!r}"
            )
            continue
        if any(s < ce and cs < e for cs, ce, _ in chosen):
            continue
        chosen.append((s, e, i))
        by_span[(s, e)] = i
    out = []
    for i, ent in enumerate(entities):
        spans = sorted((s, e) for s, e, j in chosen if j == i)
        if not spans:
            errors.append(
                f"{ent.get('name')!r}: no mention left (every form is inside a longer one)"
            )
            continue
        out.append(
            {
                "name": ent.get("name"),
                "label": ent.get("label"),
                "role": ent.get("role"),
                "mentions": [list(x) for x in spans],
            }
        )
    covered = [(s, e) for s, e, _ in chosen]

    def is_covered(s: int, e: int) -> bool:
        return any(cs <= s and e <= ce for cs, ce in covered)

    forms_all = {f for ent in entities for f in (ent.get("forms") or []) if f}
    lower = text.lower()
    for form in sorted(forms_all, key=len, reverse=True):
        if len(form) < 2:
            continue
        for m in re.finditer(re.escape(form.lower()), lower):
            s, e = m.span()
            if is_covered(s, e) or any(s < ce and cs < e for cs, ce in covered):
                continue
            word_s, word_e = s, e
            while word_s > 0 and _word_char(text[word_s - 1]):
                word_s -= 1
            while word_e < len(text) and _word_char(text[word_e]):
                word_e += 1
            warnings.append(
                f"unannotated {text[word_s:word_e]!r} at [{word_s}, {word_e}] looks like form {form!r}"
            )
    return out, errors, warnings
