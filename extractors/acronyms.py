"""Acronym definitions, "Long Form (LF)", after Schwartz & Hearst (2003).

Schwartz and Hearst, "A Simple Algorithm for Identifying Abbreviation Definitions in Biomedical
Text" (PSB 2003): a short form in parentheses is matched right to left, character by character,
against the words before it; the first character of the short form must start a word of the long
form, and the long form may have at most ``min(len(SF) + 5, 2 * len(SF))`` words.

The algorithm is plain functions over strings (testable without spaCy); :class:`AcronymDetector`
is the thin spaCy component that writes the results to ``doc.spans``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.language import Language
from spacy.tokens import Doc, Span

from .component import Stateless

__all__ = ["Definition", "find_definitions", "best_long_form", "find_uses", "AcronymDetector"]

SPANS_KEY = "kg_acronyms"
_PAREN = re.compile(r"\(\s*([^()\s][^()]{0,14}?)\s*\)")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class Definition:
    """One "long form (short form)" pair with char offsets into the text."""

    short: str
    short_start: int
    short_end: int
    long: str
    long_start: int
    long_end: int


def _is_short_form(candidate: str) -> bool:
    """2-10 characters, at most two words, starts alphanumeric, has a capital and a letter."""
    if not 2 <= len(candidate) <= 10 or len(candidate.split()) > 2:
        return False
    if not candidate[0].isalnum() or not any(ch.isupper() for ch in candidate):
        return False
    if candidate.isdigit() or re.fullmatch(r"[ivxlcdm]+|[IVXLCDM]+|\d+[a-z]?", candidate):
        return False
    return True


_SMALL_WORDS = frozenset("of and the for in on to with a an by via from".split())
_PARTS = re.compile(r"[^\s\-/]+")


def initials_long_form(short: str, candidate: str) -> int | None:
    """Start of the long form whose word initials spell ``short`` ("Proximal Policy Optimization"
    for "PPO"), skipping only small words like "of"; None when the initials do not fit.

    Tried before :func:`best_long_form`, whose letter-by-letter match would settle for the
    shorter "Policy Optimization" there.
    """
    letters = [c for c in short.lower() if c.isalpha()]
    if short.endswith("s") and len(letters) > 2 and short[:-1].isupper():
        letters = letters[:-1]  # "LLMs": the plural s has no word of its own
    parts = list(_PARTS.finditer(candidate))
    i = len(parts) - 1
    for c in reversed(letters):
        while i >= 0 and parts[i].group().lower()[0] != c:
            if parts[i].group().lower() not in _SMALL_WORDS:
                return None
            i -= 1
        if i < 0:
            return None
        i -= 1
    return candidate.rfind(" ", 0, parts[i + 1].start() + 1) + 1


def best_long_form(short: str, candidate: str) -> int | None:
    """Start index in ``candidate`` of the shortest long form that ``short`` abbreviates, or None.

    Walks both strings right to left: every alphanumeric character of the short form must appear in
    order in the long form, and its first character must begin a word.
    """
    s_chars = short.lower()
    l_chars = candidate.lower()
    s_index = len(s_chars) - 1
    l_index = len(l_chars) - 1
    while s_index >= 0:
        c = s_chars[s_index]
        if not c.isalnum():
            s_index -= 1
            continue
        while l_index >= 0 and (
            l_chars[l_index] != c
            or (s_index == 0 and l_index > 0 and l_chars[l_index - 1].isalnum())
        ):
            l_index -= 1
        if l_index < 0:
            return None
        l_index -= 1
        s_index -= 1
    start = candidate.rfind(" ", 0, l_index + 1) + 1
    return start


def find_definitions(text: str) -> list[Definition]:
    """Every "long form (SF)" definition in ``text``, in order of appearance.

    >>> [d.long for d in find_definitions("We study Probabilistic Instruction Following (PIF) here.")]
    ['Probabilistic Instruction Following']
    """
    found: list[Definition] = []
    for match in _PAREN.finditer(text):
        short = match.group(1).split(";")[0].split(",")[0].strip()
        if not _is_short_form(short):
            continue
        # the window of words before "(" within the same sentence
        left = text[: match.start()]
        sentence_start = max(
            left.rfind(". "), left.rfind("? "), left.rfind("! "), left.rfind("; "), left.rfind(": ")
        )
        sentence_start = sentence_start + 2 if sentence_start >= 0 else 0
        words = list(_WORD.finditer(left, sentence_start))
        max_words = min(len(short) + 5, 2 * len(short))
        words = words[-max_words:]
        if not words:
            continue
        window_start = words[0].start()
        window = left[window_start:].rstrip()
        offset = initials_long_form(short, window)
        if offset is None:
            offset = best_long_form(short, window)
        if offset is None:
            continue
        raw = window[offset:]
        long = raw.strip(" ,:~*'\"\u201c\u201d")
        long_start = window_start + offset + raw.index(long[:1]) if long else window_start + offset
        if len(long) <= len(short) or short.lower() in long.lower().split():
            continue
        if len(long.split()) > max_words:
            continue
        short_start = match.start(1)
        found.append(
            Definition(
                short,
                short_start,
                short_start + len(short),
                long,
                long_start,
                long_start + len(long),
            )
        )
    return found


def find_uses(text: str, short: str, start: int = 0) -> list[tuple[int, int]]:
    """Char spans of ``short`` (and its plural ``shorts``) as a whole word in ``text`` from ``start``."""
    stem = short[:-1] if short.endswith("s") and short[:-1].isupper() else short
    pattern = re.compile(r"(?<![\w-])" + re.escape(stem) + r"s?(?![\w-])")
    return [(m.start(), m.end()) for m in pattern.finditer(text, start)]


class AcronymDetector(Stateless):
    """Writes each definition's short and long form, and later uses of the short form, to
    ``doc.spans["kg_acronyms"]``: labels ``SHORT``/``LONG``/``USE``; ``kb_id_`` holds the partner
    form, so the pair survives serialisation and multiprocessing as plain strings."""

    def __init__(self, nlp: Language, name: str = "kg_acronyms", *, spans_key: str = SPANS_KEY):
        self.name = name
        self.spans_key = spans_key

    def __call__(self, doc: Doc) -> Doc:
        spans: list[Span] = []
        text = doc.text
        defined: dict[str, str] = {}
        for definition in find_definitions(text):
            short = doc.char_span(
                definition.short_start,
                definition.short_end,
                label="SHORT",
                kb_id=definition.long,
                alignment_mode="expand",
            )
            long = doc.char_span(
                definition.long_start,
                definition.long_end,
                label="LONG",
                kb_id=definition.short,
                alignment_mode="expand",
            )
            if short is None or long is None:
                continue
            spans.extend((short, long))
            defined.setdefault(definition.short, definition.long)
            for start, end in find_uses(text, definition.short, definition.short_end + 1):
                use = doc.char_span(
                    start, end, label="USE", kb_id=definition.long, alignment_mode="expand"
                )
                if use is not None:
                    spans.append(use)
        doc.spans[self.spans_key] = spans
        return doc


@Language.factory("kg_acronyms", default_config={"spans_key": SPANS_KEY}, assigns=["doc.spans"])
def make_acronym_detector(nlp: Language, name: str, spans_key: str) -> AcronymDetector:
    return AcronymDetector(nlp, name, spans_key=spans_key)
