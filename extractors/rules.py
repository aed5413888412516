"""Rule-based mention finders: gazetteers and name shapes (a ``SpanRuler``), cue phrases
("we propose X", "experiments on X", "in terms of X") and head-noun phrases ("... detection").

Each finder writes candidate spans into its own ``doc.spans`` key, labelled with a product label
(METHOD, DATASET, TASK, METRIC); ``kg_mentions`` (in :mod:`extractors.mentions`) decides between
overlapping candidates. Pure helpers over tokens sit beside the thin components.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from spacy.attrs import LOWER, ORTH, SENT_START
from spacy.language import Language
from spacy.strings import get_string_id
from spacy.tokens import Doc, Span, Token

from .component import Stateless
from .lexicon import BOUNDARY_WORDS, HEAD_LABELS, is_generic, is_verbish, label_for_head

__all__ = [
    "GAZETTEER_FILES",
    "load_gazetteer",
    "gazetteer_patterns",
    "shape_patterns",
    "is_name_token",
    "name_after",
    "appositive_label",
    "head_phrases",
    "CueFinder",
]

GAZETTEER_FILES: dict[str, str] = {
    "DATASET": "datasets.txt",
    "METHOD": "methods.txt",
    "METRIC": "metrics.txt",
    "TASK": "tasks.txt",
}
CUES_KEY = "kg_cues"
HEADS_KEY = "kg_heads"


@cache
def load_gazetteer(directory: str | None = None) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """``(label, canonical name, aliases)`` for every line of the gazetteer files."""
    base = Path(directory) if directory else resources.files("extractors") / "gazetteers"
    entries = []
    for label, filename in GAZETTEER_FILES.items():
        text = (base / filename).read_text(encoding="utf-8")
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            names = [n.strip() for n in line.split("|") if n.strip()]
            entries.append((label, names[0], tuple(names)))
    return tuple(entries)


def gazetteer_patterns(
    nlp: Language, directory: str | None = None
) -> tuple[list[dict], list[dict]]:
    """SpanRuler phrase patterns as ``(exact, lowercase)``: names with capitals or digits match
    exactly (so "AO" is not "ao"); all-lowercase names match case-insensitively, plural included.
    The pattern ``id`` is the canonical name (prefixed ``lower:`` for the case-insensitive ones)."""
    exact, lower = [], []
    for label, canonical, names in load_gazetteer(directory):
        for name in names:
            if name != name.lower():
                exact.append({"label": label, "pattern": name, "id": canonical})
            else:
                for form in {name, name + "s", name + "es"}:
                    lower.append({"label": label, "pattern": form, "id": "lower:" + canonical})
    return exact, lower


_DATASET_HEADS = ["dataset", "datasets", "benchmark", "benchmarks", "corpus", "suite", "testbed"]


def shape_patterns() -> list[dict]:
    """Name shapes that say what a token is: "NoveltyBench", "GOT-10k", "LAION-400M", "X dataset"."""
    return [
        {
            "label": "DATASET",
            "id": "shape:bench",
            "pattern": [{"TEXT": {"REGEX": r"^[A-Z][\w\-]*[Bb]ench(?:mark)?(?:-\w+)?$"}}],
        },
        {
            "label": "DATASET",
            "id": "shape:size",
            "pattern": [{"TEXT": {"REGEX": r"^[A-Z][A-Za-z]+-\d+[kKM]$"}}],
        },
        {
            "label": "DATASET",
            "id": "shape:name-head",
            "pattern": [
                {"TEXT": {"REGEX": r"^[A-Z][\w\-]*[A-Z0-9][\w\-]*$"}, "IS_SENT_START": False},
                {"LOWER": {"IN": _DATASET_HEADS}},
            ],
        },
    ]


_NAME_SHAPE = re.compile(r"^(?:[A-Z][\w\-+.]*|[a-z]+[A-Z][\w\-+.]*|\d+[A-Z][\w\-]*)$")


def is_name_token(token: Token) -> bool:
    """A token that can be (part of) a coined name: capitalised, CamelCase or an acronym, and not
    a capitalised ordinary word at the start of a sentence."""
    text = token.text
    if not _NAME_SHAPE.match(text):
        return False
    if token.is_sent_start and text.istitle() and text.lower() in BOUNDARY_WORDS:
        return False
    return True


def name_after(doc: Doc, i: int, max_skip: int = 4) -> Span | None:
    """The coined name starting within ``max_skip`` tokens after index ``i`` ("we propose a novel
    FARTrack ..."), skipping articles and lowercase adjectives; None when a lowercase noun phrase
    comes first."""
    j = i
    skipped = 0
    while j < len(doc) and skipped <= max_skip:
        token = doc[j]
        if is_name_token(token) and not token.is_sent_start:
            break
        if token.is_punct or token.lower_ in {
            "that",
            "which",
            "to",
            "for",
            "and",
            "in",
            "on",
            "with",
        }:
            return None
        if token.lower_ in BOUNDARY_WORDS or token.is_lower:
            j += 1
            skipped += 1
            continue
        return None
    else:
        return None
    start = j
    end = j + 1
    # a multi-word name continues with names joined by short lowercase words ("String Seed of Thought")
    while end < len(doc) and end - start < 8:
        if is_name_token(doc[end]):
            end += 1
        elif (
            doc[end].lower_ in {"of", "for", "-"}
            and end + 1 < len(doc)
            and is_name_token(doc[end + 1])
        ):
            end += 2
        else:
            break
    # stop before a following lowercase head noun: "RS framework" is a modifier, not a name
    if end < len(doc) and doc[end].is_lower and doc[end].lower_ in HEAD_LABELS:
        return None
    return doc[start:end]


def appositive_label(doc: Doc, end: int, window: int = 8) -> str | None:
    """Label from an appositive after a name: "SSoT, a simple prompting method" -> METHOD."""
    j = end
    while j < len(doc) and doc[j].text in {")", "]", "”", "'", '"'}:
        j += 1
    if j >= len(doc) or doc[j].text not in {",", ":", "—", "–", "("}:
        return None
    for token in doc[j + 1 : min(len(doc), j + 1 + window)]:
        if token.text in {",", ".", ";", "(", ")"} or token.lower_ in {
            "that",
            "which",
            "for",
            "to",
            "of",
            "with",
        }:
            break
        label = label_for_head(token.text)
        if label is not None and token.is_lower:
            # keep scanning: "a large-scale benchmark dataset" ends on the last head word
            nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
            if nxt is not None and nxt.is_lower and label_for_head(nxt.text):
                continue
            return label
    return None


_TRIGGERS = {
    "propose": [
        "propose",
        "proposes",
        "introduce",
        "introduces",
        "present",
        "presents",
        "develop",
        "develops",
        "design",
        "designs",
        "build",
        "builds",
        "construct",
        "constructs",
        "curate",
        "curates",
        "release",
        "releases",
        "term",
        "call",
        "dub",
        "name",
    ],
    "evaluate_on": ["on"],
    "terms_of": ["of"],
}


_PROPOSE_FIRST = ["we", "paper", "work", "this"]
_PROPOSE_ADVERB = ["further", "also", "then", "first", "here"]
_EVAL_FIRST = [
    "experiments",
    "experiment",
    "evaluations",
    "evaluation",
    "results",
    "evaluated",
    "evaluate",
    "evaluating",
    "tested",
    "test",
    "trained",
    "train",
    "training",
    "benchmarks",
    "benchmark",
    "datasets",
    "dataset",
    "performance",
    "accuracy",
    "improvements",
    "gains",
    "fine-tuned",
    "finetuned",
    "pretrained",
    "pre-trained",
]
_EVAL_NEXT = ["on", "using", "across", "including", "like"]
_LIST_FIRST = ["datasets", "benchmarks", "corpora"]
_SUCH = ["such", "including", "like"]
_TASK_FIRST = ["task", "problem"]
_TASKS_FIRST = ["tasks", "applications"]


def _hashes(words) -> frozenset[int]:
    # a string's id as Token.lower gives it: its hash, or a symbol's id ("agent", "name" ...)
    return frozenset(get_string_id(w) for w in words)


# the same word lists as lower-case string ids (Token.lower), for CueFinder.matches
_H_PROPOSE_FIRST = _hashes(_PROPOSE_FIRST)
_H_PROPOSE_ADVERB = _hashes(_PROPOSE_ADVERB)
_H_PROPOSE_TRIGGER = _hashes(_TRIGGERS["propose"])
_H_EVAL_FIRST = _hashes(_EVAL_FIRST)
_H_EVAL_NEXT = _hashes(_EVAL_NEXT)
_H_LIST_FIRST = _hashes(_LIST_FIRST)
_H_SUCH = _hashes(_SUCH)
_H_TASK_FIRST = _hashes(_TASK_FIRST)
_H_TASKS_FIRST = _hashes(_TASKS_FIRST)
_H_AS, _H_IN, _H_TERMS, _H_OF = (get_string_id(w) for w in ("as", "in", "terms", "of"))
_CUE_STARTS = (
    _H_PROPOSE_FIRST
    | _H_EVAL_FIRST
    | _H_LIST_FIRST
    | _H_TASK_FIRST
    | _H_TASKS_FIRST
    | frozenset({_H_IN})
)


class CueFinder(Stateless):
    """Cue phrases that name an entity by position: "we propose X" (a proposed name),
    "experiments on X, Y and Z" (datasets), "in terms of X" (a metric), "the task of X" (a task).

    Writes ``doc.spans["kg_cues"]``; ``kb_id_`` is ``"proposed"`` for names a paper introduces.
    """

    def __init__(self, nlp: Language, name: str = "kg_cues", *, spans_key: str = CUES_KEY):
        self.name = name
        self.spans_key = spans_key

    def __call__(self, doc: Doc) -> Doc:
        spans: list[Span] = []
        for kind, _start, end in self.matches(doc):
            spans.extend(self._spans_for(doc, kind, end))
        doc.spans[self.spans_key] = spans
        return doc

    def matches(self, doc: Doc) -> list[tuple[str, int, int]]:
        """``(kind, start, end)`` of every cue phrase, sorted by end, as a spaCy ``Matcher`` with these
        token patterns on LOWER would find them (tests/unit/test_fast_paths.py holds that Matcher):

        - PROPOSE: _PROPOSE_FIRST, an optional _PROPOSE_ADVERB, a "propose" trigger ("we propose");
        - EVAL_ON: _EVAL_FIRST + _EVAL_NEXT ("experiments on"), or _LIST_FIRST + _SUCH + optional "as";
        - TERMS_OF: "in terms of";
        - TASK_OF: _TASK_FIRST + "of", or _TASKS_FIRST + _SUCH + optional "as".

        Comparing lower-case string ids is about ten times faster than the Matcher's set predicates."""
        lower = doc.to_array(LOWER).tolist()
        n = len(lower)
        found: list[tuple[int, int, str]] = []
        starts = _CUE_STARTS
        for i, h in enumerate(lower):
            if h not in starts:
                continue
            nxt = lower[i + 1] if i + 1 < n else 0
            if h in _H_PROPOSE_FIRST:
                if nxt in _H_PROPOSE_TRIGGER:
                    found.append((i + 2, i, "PROPOSE"))
                elif nxt in _H_PROPOSE_ADVERB and i + 2 < n and lower[i + 2] in _H_PROPOSE_TRIGGER:
                    found.append((i + 3, i, "PROPOSE"))
            if h in _H_EVAL_FIRST and nxt in _H_EVAL_NEXT:
                found.append((i + 2, i, "EVAL_ON"))
            elif h in _H_LIST_FIRST and nxt in _H_SUCH:
                found.append((i + 2, i, "EVAL_ON"))
            if h in _H_LIST_FIRST and nxt in _H_SUCH and i + 2 < n and lower[i + 2] == _H_AS:
                found.append((i + 3, i, "EVAL_ON"))
            if h == _H_IN and nxt == _H_TERMS and i + 2 < n and lower[i + 2] == _H_OF:
                found.append((i + 3, i, "TERMS_OF"))
            if h in _H_TASK_FIRST and nxt == _H_OF:
                found.append((i + 2, i, "TASK_OF"))
            if h in _H_TASKS_FIRST and nxt in _H_SUCH:
                found.append((i + 2, i, "TASK_OF"))
                if i + 2 < n and lower[i + 2] == _H_AS:
                    found.append((i + 3, i, "TASK_OF"))
        found.sort()
        return [(kind, start, end) for end, start, kind in found]

    def _spans_for(self, doc: Doc, kind: str, end: int) -> Iterator[Span]:
        if kind == "PROPOSE":
            name = name_after(doc, end)
            if name is not None:
                label = _name_label(doc, name) or "METHOD"
                yield Span(doc, name.start, name.end, label=label, kb_id="proposed")
        elif kind == "EVAL_ON":
            for name in _name_list(doc, end):
                label = _name_label(doc, name) or "DATASET"
                if label == "DATASET":
                    yield Span(doc, name.start, name.end, label="DATASET")
        elif kind == "TERMS_OF":
            for name in _name_list(doc, end, lowercase_ok=True, max_words=3):
                yield Span(doc, name.start, name.end, label="METRIC")
        elif kind == "TASK_OF":
            for name in _name_list(doc, end, lowercase_ok=True, max_words=5):
                if not is_generic(name.text):
                    yield Span(doc, name.start, name.end, label="TASK")


def _name_label(doc: Doc, name: Span) -> str | None:
    """Label a coined name by its own shape or the appositive after it."""
    if re.search(r"[Bb]ench(?:mark)?$|QA$|-\d+[kKM]$", name.text):
        return "DATASET"
    if re.search(r"\d(?:\.\d+)?[Bb]$", name.text):  # "LLaMA-7B": a model size
        return "METHOD"
    after = appositive_label(doc, name.end)
    if after is None and name.end + 1 < len(doc) and doc[name.end].text == "(":
        # "X (XS), a ..." - skip the acronym in parentheses
        close = next((t.i for t in doc[name.end : name.end + 6] if t.text == ")"), None)
        if close is not None:
            after = appositive_label(doc, close + 1)
    if after is not None:
        return after
    last = name[-1].text
    return label_for_head(last)


def _name_list(
    doc: Doc, i: int, *, lowercase_ok: bool = False, max_words: int = 6
) -> Iterator[Span]:
    """Names in a list starting at ``i``: "GOT-10k, LaSOT and TrackingNet"."""
    j = i
    if j < len(doc) and doc[j].lower_ in {
        "the",
        "a",
        "an",
        "several",
        "multiple",
        "various",
        "both",
        "three",
        "four",
        "five",
        "two",
    }:
        j += 1
    while j < len(doc):
        start = j
        while j < len(doc) and j - start < max_words:
            token = doc[j]
            if j > start and token.is_sent_start:
                break
            if (
                is_name_token(token)
                or (
                    lowercase_ok
                    and token.is_alpha
                    and token.lower_ not in BOUNDARY_WORDS
                    and not is_verbish(token.text)
                )
                or (token.text == "-" and j > start)
            ):
                j += 1
            else:
                break
        if j == start:
            return
        span = doc[start:j]
        while len(span) and (span[-1].lower_ in _DATASET_HEADS or span[-1].text == "-"):
            span = span[:-1]
        if len(span):
            yield span
        if j < len(doc) and doc[j].text == "," and j + 1 < len(doc):
            j += 1
            if doc[j].lower_ == "and":
                j += 1
        elif j < len(doc) and doc[j].lower_ in {"and", "or"}:
            j += 1
        else:
            return


_WORDLIKE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*$")
_GENERIC_HEADS = frozenset(
    "model models method methods approach approaches framework frameworks algorithm algorithms technique "
    "techniques strategy scheme pipeline module modules mechanism system agent agents layer layers network "
    "networks architecture architectures paradigm loss objective policy policies search heuristic estimator "
    "estimators classifier classifiers score scores error errors rate dataset datasets benchmark benchmarks "
    "suite testbed corpus corpora".split()
)


_HEAD_HASHES: tuple[int, frozenset[int]] = (-1, frozenset())


def _head_hashes() -> frozenset[int]:
    """Lower-case hashes of the HEAD_LABELS words (remade if the table grows)."""
    global _HEAD_HASHES
    if _HEAD_HASHES[0] != len(HEAD_LABELS):
        _HEAD_HASHES = (len(HEAD_LABELS), frozenset(get_string_id(w) for w in HEAD_LABELS))
    return _HEAD_HASHES[1]


def _sentence_starts(doc: Doc) -> list[int] | None:
    """Token indices where sentences start, as ``Token.sent`` finds them (the first token, and each
    token whose ``sent_start`` is 1); None when sentences are unset or come from user hooks."""
    if (
        "sents" in doc.user_hooks
        or "sent" in doc.user_span_hooks
        or "sent" in doc.user_token_hooks
        or not doc.has_annotation("SENT_START")
    ):
        return None
    starts = [i for i, v in enumerate(doc.to_array(SENT_START).tolist()) if v == 1 and i > 0]
    return [0] + starts


def head_phrases(doc: Doc, max_modifiers: int = 4) -> Iterator[Span]:
    """Noun phrases that end in a labelled head noun: "multimodal misinformation detection" (TASK),
    "image generation models" (METHOD). Generic heads need two modifiers or a named one, so
    "prompting method" is not an entity but "GAN-based method" is."""
    heads = _head_hashes()
    sent_starts = _sentence_starts(doc)
    for i, h in enumerate(doc.to_array(LOWER).tolist()):
        if h not in heads:
            continue  # only head nouns start a phrase; skip the rest without making Token objects
        token = doc[i]
        head = token.lower_
        label = HEAD_LABELS.get(head)
        if label is None or not token.is_lower:
            continue
        nxt = doc[token.i + 1] if token.i + 1 < len(doc) else None
        if nxt is not None and nxt.is_lower and nxt.lower_ in HEAD_LABELS and not nxt.is_punct:
            continue  # "detection models": the phrase ends later
        start = token.i
        sent_start = (
            sent_starts[bisect_right(sent_starts, i) - 1] if sent_starts else token.sent.start
        )
        while start > sent_start and token.i - start < max_modifiers * 2:
            prev = doc[start - 1]
            if prev.text == "-" and start - 2 >= sent_start:
                start -= 2
                continue
            if (
                not _WORDLIKE.match(prev.text)
                or prev.lower_ in BOUNDARY_WORDS
                or prev.is_stop
                or is_verbish(prev.text)
            ):
                break
            if (
                prev.text.isupper()
                and len(prev.text) > 1
                and not any(c.isdigit() for c in prev.text)
            ):
                start -= 1  # an acronym modifier: "RL algorithms"
                continue
            if not prev.is_lower and not is_name_token(prev):
                break
            start -= 1
        modifiers = [t for t in doc[start : token.i] if t.text != "-"]
        if not modifiers:
            continue
        named = any(not t.is_lower for t in modifiers)
        if head in _GENERIC_HEADS and len(modifiers) < 2 and not named:
            continue
        if label == "DATASET" and not named:
            continue  # "web-scale datasets" describes data; a data set entity has a name
        span = Span(doc, start, token.i + 1, label=label)
        if not is_generic(span.text):
            yield span


class HeadPhraseFinder(Stateless):
    """Writes :func:`head_phrases` to ``doc.spans["kg_heads"]``."""

    def __init__(self, nlp: Language, name: str = "kg_heads", *, spans_key: str = HEADS_KEY):
        self.name = name
        self.spans_key = spans_key

    def __call__(self, doc: Doc) -> Doc:
        doc.spans[self.spans_key] = list(head_phrases(doc))
        return doc


@Language.factory("kg_cues", default_config={"spans_key": CUES_KEY}, assigns=["doc.spans"])
def make_cue_finder(nlp: Language, name: str, spans_key: str) -> CueFinder:
    return CueFinder(nlp, name, spans_key=spans_key)


@Language.factory(
    "kg_heads",
    default_config={"spans_key": HEADS_KEY},
    requires=["token.is_sent_start"],
    assigns=["doc.spans"],
)
def make_head_finder(nlp: Language, name: str, spans_key: str) -> HeadPhraseFinder:
    return HeadPhraseFinder(nlp, name, spans_key=spans_key)


class ShapeFinder(Stateless):
    """The name shapes of :func:`shape_patterns`, merged into ``doc.spans[spans_key]`` exactly as a
    ``span_ruler`` holding them beside the gazetteer's names would write them (one sorted list
    without repeats), but with each distinct token text tested once per process instead of the
    Matcher's regular-expression predicates on every token of every document."""

    _MAX_CACHE = 1_000_000

    def __init__(self, nlp: Language, name: str = "kg_shapes", *, spans_key: str = "kg_gazetteer"):
        self.name = name
        self.spans_key = spans_key
        bench, size, name_head = shape_patterns()
        self._single = [
            (re.compile(p["pattern"][0]["TEXT"]["REGEX"]), p["label"], p["id"])
            for p in (bench, size)
        ]
        first, head = name_head["pattern"]
        self._name = re.compile(first["TEXT"]["REGEX"])
        self._name_head = (name_head["label"], name_head["id"])
        self._heads = frozenset(get_string_id(w) for w in head["LOWER"]["IN"])
        self._flags: dict[int, int] = {}  # ORTH hash -> bit k set when regex k matches the text

    def _flag(self, orth: int, strings) -> int:
        text = strings[orth]
        flag = 0
        for k, (regex, _label, _id) in enumerate(self._single):
            if regex.search(text):
                flag |= 1 << k
        if self._name.search(text):
            flag |= 4
        if len(self._flags) > self._MAX_CACHE:
            self._flags.clear()
        self._flags[orth] = flag
        return flag

    def shapes(self, doc: Doc) -> list[Span]:
        """The shape spans of ``doc`` (unsorted; repeats possible)."""
        rows = doc.to_array([ORTH, LOWER, SENT_START]).tolist()
        flags, strings = self._flags, doc.vocab.strings
        found: list[Span] = []
        n = len(rows)
        for i, (orth, _lower, _sent) in enumerate(rows):
            flag = flags.get(orth)
            if flag is None:
                flag = self._flag(orth, strings)
            if not flag:
                continue
            for k, (_regex, label, span_id) in enumerate(self._single):
                if flag & (1 << k):
                    found.append(Span(doc, i, i + 1, label=label, span_id=span_id))
            if flag & 4 and rows[i][2] != 1 and i + 1 < n and rows[i + 1][1] in self._heads:
                found.append(
                    Span(doc, i, i + 2, label=self._name_head[0], span_id=self._name_head[1])
                )
        return found

    def __call__(self, doc: Doc) -> Doc:
        found = self.shapes(doc)
        if found:
            spans = list(doc.spans[self.spans_key]) if self.spans_key in doc.spans else []
            doc.spans[self.spans_key] = sorted(set(spans + found))
        elif self.spans_key not in doc.spans:
            doc.spans[self.spans_key] = []
        return doc


@Language.factory("kg_shapes", default_config={"spans_key": "kg_gazetteer"}, assigns=["doc.spans"])
def make_shape_finder(nlp: Language, name: str, spans_key: str) -> ShapeFinder:
    return ShapeFinder(nlp, name, spans_key=spans_key)


def add_gazetteer(nlp: Language, name: str = "kg_gazetteer", directory: str | None = None) -> None:
    """Add two spaCy ``span_ruler`` components writing to ``doc.spans[name]``: exact names, then
    case-insensitive names (a phrase matcher on LOWER; token patterns with LOWER would make the
    matcher the slowest step of the pipeline), with the name shapes (``kg_shapes``, code, not
    patterns) merged in between. The rulers' patterns are saved with the pipeline, so a packaged
    model carries its gazetteer."""
    exact, lower = gazetteer_patterns(nlp, directory)
    ruler: Any = nlp.add_pipe(
        "span_ruler", name=name, config={"spans_key": name, "overwrite": True, "validate": False}
    )
    ruler.add_patterns(exact)
    nlp.add_pipe("kg_shapes", name=name + "_shapes", config={"spans_key": name})
    ruler_lower: Any = nlp.add_pipe(
        "span_ruler",
        name=name + "_lower",
        config={
            "spans_key": name,
            "overwrite": False,
            "validate": False,
            "phrase_matcher_attr": "LOWER",
        },
    )
    ruler_lower.add_patterns(lower)
