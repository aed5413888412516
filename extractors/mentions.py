"""The last pipeline step: choose among overlapping candidates and write plain mention records.

Candidates come from acronym definitions, the gazetteer ``span_ruler``, cue phrases, name shapes,
a statistical ``ner``/``spancat`` when the pipeline has one, and head-noun phrases. Each token
belongs to at most one mention; earlier sources in :data:`PRIORITY` win, longer spans win within a
source. Records go to ``doc.user_data["kg_mentions"]`` as plain dicts (so multiprocessing
``nlp.pipe`` keeps them) and, for display, to ``doc.spans["kg"]``.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator

from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.schema import MODEL_TO_PRODUCT

from .acronyms import SPANS_KEY as ACRONYMS_KEY
from .component import Stateless
from .lexicon import is_generic, label_for_head
from .rules import CUES_KEY, HEADS_KEY, appositive_label

__all__ = ["MENTIONS_KEY", "PRIORITY", "MentionChooser", "map_ner_label"]

MENTIONS_KEY = "kg_mentions"
GAZETTEER_KEY = "kg_gazetteer"
#: Candidate sources, strongest first, with the score each mention gets.
PRIORITY: tuple[tuple[str, float], ...] = (
    ("acronym", 0.95),
    ("gazetteer", 0.9),
    ("cue", 0.85),
    ("shape", 0.8),
    ("ner", 0.75),
    ("head", 0.6),
)
_SCORES = dict(PRIORITY)
#: A later use of a defined short form scores a little below the definition itself.
ACRONYM_USE_SCORE = 0.9
_DATA_HEAD = re.compile(
    r"\b(?:dataset|datasets|benchmark|benchmarks|corpus|corpora|treebank|suite)$", re.I
)
_NAME_TOKEN = re.compile(r"^(?=.*[A-Z])(?=.*(?:[a-z].*[A-Z]|\d|[A-Z]{2}))[A-Za-z0-9][\w\-+.]{2,}$")
_NOT_DATA = frozenset("GPU GPUs CPU CPUs TPU TPUs API APIs LLM LLMs AI ML NLP CV RL".split())


def map_ner_label(label: str, text: str) -> str | None:
    """Product label for a statistical span. A data set needs a name: one token shaped like one
    ("ImageNet", "CIFAR-10", "MMLU") or a phrase ending in a data head noun ("the WMT corpus");
    "images", "speech data", "3D domain" or "GPU" are materials, not data sets."""
    mapped = MODEL_TO_PRODUCT.get(label)
    if mapped == "DATASET":
        words = text.split()
        named = len(words) == 1 and bool(_NAME_TOKEN.match(text)) and text not in _NOT_DATA
        headed = (
            len(words) > 1
            and bool(_DATA_HEAD.search(text))
            and any(not w.islower() for w in words[:-1])
        )
        if not (named or headed):
            return None
    return mapped


class MentionChooser(Stateless):
    """Resolve overlaps between candidate spans and emit one record per mention."""

    def __init__(self, nlp: Language, name: str = "kg_mentions", *, min_chars: int = 2):
        self.name = name
        self.min_chars = min_chars

    def __call__(self, doc: Doc) -> Doc:
        text = doc.text  # a span's text is text[start_char:end_char], without walking its tokens
        taken = [False] * len(doc)
        sents = list(doc.sents)
        sent_starts = [sent.start for sent in sents]
        sent_texts: dict[int, str] = {}
        records: list[dict] = []
        chosen: list[Span] = []
        min_chars = self.min_chars
        for source, score, span, extra in self._candidates(doc, text):
            start, end = span.start, span.end
            start_char, end_char = span.start_char, span.end_char
            span_text = text[start_char:end_char]
            if len(span_text) < min_chars or any(taken[start:end]):
                continue
            if source != "acronym" and (is_generic(span_text) or span_text.count("$") % 2):
                continue  # no particular thing, or a cut through LaTeX math ("optimal complexity $")
            for i in range(start, end):
                taken[i] = True
            role = extra.get("role", "used")
            if start > 0 and doc[start - 1].lower_ == "our":
                role = "proposed"
            k = bisect_right(sent_starts, start) - 1
            sent = sents[k]
            sent_text = sent_texts.get(k)
            if sent_text is None:
                sent_text = sent_texts[k] = text[sent.start_char : sent.end_char]
            records.append(
                {
                    "label": span.label_,
                    "text": span_text,
                    "start": start_char,
                    "end": end_char,
                    "sentence": sent_text,
                    "sent_start": sent.start_char,
                    "extractor": source,
                    "score": extra.get("score", score),
                    "role": role,
                    "long_form": extra.get("long_form"),
                    "short_form": extra.get("short_form"),
                    "canonical": extra.get("canonical"),
                }
            )
            chosen.append(span)
        order = sorted(range(len(records)), key=lambda k: records[k]["start"])
        doc.user_data[MENTIONS_KEY] = [records[k] for k in order]
        doc.spans["kg"] = [chosen[k] for k in order]
        return doc

    def _candidates(self, doc: Doc, text: str) -> Iterator[tuple[str, float, Span, dict]]:
        scores = _SCORES
        cues = list(doc.spans.get(CUES_KEY, []))
        gazetteer = list(doc.spans.get(GAZETTEER_KEY, []))
        gaz = [s for s in gazetteer if not s.id_.startswith("shape:")]
        shapes = [s for s in gazetteer if s.id_.startswith("shape:")]
        statistical = list(_statistical_spans(doc, text))
        # 1. acronym definitions and the uses of their short forms
        yield from self._acronym_candidates(doc, text, cues, gaz, statistical)
        # 2. gazetteer names (a lowercase entry never matches an all-caps name like "RECALL")
        for span in _longest_first(gaz):
            if span.id_.startswith("lower:") and span.text.isupper():
                continue
            canonical = span.id_.removeprefix("lower:")
            yield "gazetteer", scores["gazetteer"], span, {"canonical": canonical}
        # 3. cue phrases, 4. shapes, 5. statistical model, 6. head-noun phrases
        for span in _longest_first(cues):
            yield (
                "cue",
                scores["cue"],
                span,
                {"role": "proposed" if span.kb_id_ == "proposed" else "used"},
            )
        for span in _longest_first(shapes):
            yield "shape", scores["shape"], _strip_head(doc, span), {}
        for span, score in statistical:
            yield "ner", score, span, {"score": score}
        for span in _longest_first(doc.spans.get(HEADS_KEY, [])):
            yield "head", scores["head"], span, {}

    def _acronym_candidates(
        self,
        doc: Doc,
        text: str,
        cues: list[Span],
        gaz: list[Span],
        statistical: list[tuple[Span, float]],
    ) -> Iterator[tuple[str, float, Span, dict]]:
        acronyms = list(doc.spans.get(ACRONYMS_KEY, []))
        labels: dict[str, tuple[str, str]] = {}  # short form -> (label, role)
        pairs = [
            (acronyms[i], acronyms[i + 1])
            for i in range(len(acronyms) - 1)
            if acronyms[i].label_ == "SHORT" and acronyms[i + 1].label_ == "LONG"
        ]
        for short, long in pairs:
            label, role = _definition_label(doc, short, long, cues, gaz, statistical)
            if label is None:
                continue
            short_text = text[short.start_char : short.end_char]
            labels.setdefault(short_text, (label, role))
            extra = {
                "role": role,
                "short_form": short_text,
                "long_form": text[long.start_char : long.end_char],
            }
            yield "acronym", _SCORES["acronym"], Span(doc, long.start, long.end, label=label), extra
            yield (
                "acronym",
                _SCORES["acronym"],
                Span(doc, short.start, short.end, label=label),
                extra,
            )
        for use in acronyms:
            if use.label_ == "USE":
                short_text = text[use.start_char : use.end_char]
                key = short_text if short_text in labels else short_text[:-1]
                if key in labels:
                    label, role = labels[key]
                    yield (
                        "acronym",
                        ACRONYM_USE_SCORE,
                        Span(doc, use.start, use.end, label=label),
                        {"role": role, "long_form": use.kb_id_, "short_form": key},
                    )


def _overlaps(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def _definition_label(
    doc: Doc,
    short: Span,
    long: Span,
    cues: list[Span],
    gaz: list[Span],
    statistical: list[tuple[Span, float]],
) -> tuple[str | None, str]:
    """Label of "Long Form (SF)": a gazetteer or cue hit on either form, the long form's head noun,
    an appositive after the parenthesis, or the statistical model's label for the long form."""
    role = "used"
    label = None
    for cue in cues:
        if _overlaps(cue, long) or _overlaps(cue, short):
            role = "proposed" if cue.kb_id_ == "proposed" else role
            label = label or cue.label_
    for span in gaz:
        if span.start == long.start and span.end == long.end:
            return span.label_, role
    head_label = label_for_head(long[-1].text)
    after_label = appositive_label(doc, short.end)
    head_after = _head_after(doc, short.end)
    if head_after == "DATASET" and not any(t.text[:1].isupper() for t in long[1:]):
        head_after = None  # "question-answer (QA) datasets" is a kind of data, not a named data set
    for candidate in (after_label, head_after, head_label, label):
        if candidate is not None:
            return candidate, role
    for span, _score in statistical:
        if _overlaps(span, long):
            return span.label_, role
    for span in gaz:  # the short form alone is weakest: "MAE" is a metric and "masked autoencoding"
        if span.start == short.start and span.end == short.end:
            return span.label_, role
    return None, role


def _head_after(doc: Doc, end: int) -> str | None:
    """The label of a head noun right after the parenthesis: "Sequence Transformation and Mixed
    Precision (STaMP) quantization" names a quantization method, whatever "Precision" says."""
    j = end
    while j < len(doc) and doc[j].text in {")", "]"}:
        j += 1
    if j == end or j >= len(doc) or not doc[j].is_lower:
        return None
    return label_for_head(doc[j].text)


def _statistical_spans(doc: Doc, text: str | None = None) -> Iterator[tuple[Span, float]]:
    """Spans from a trained ``ner`` (doc.ents) or ``spancat`` (doc.spans["sc"]) with product labels
    (``text`` is ``doc.text``, when the caller has it already)."""
    scored = doc.spans.get("sc")
    if scored is not None and len(scored):
        scores = scored.attrs.get("scores")
        items = [
            (s, float(scores[i]) if scores is not None else 0.75) for i, s in enumerate(scored)
        ]
    else:
        items = [(s, 0.75) for s in doc.ents]
    if text is None:
        text = doc.text
    for span, score in sorted(items, key=lambda x: (-x[1], -(x[0].end - x[0].start))):
        label = map_ner_label(span.label_, text[span.start_char : span.end_char])
        if label is not None:
            yield Span(doc, span.start, span.end, label=label), score


def _longest_first(spans: Iterable[Span]) -> list[Span]:
    return sorted(spans, key=lambda s: (-(s.end - s.start), s.start))


def _strip_head(doc: Doc, span: Span) -> Span:
    """ "ImageNet dataset" -> "ImageNet": the head noun says what it is, the name is the entity."""
    if len(span) > 1 and label_for_head(span[-1].text) == "DATASET":
        return Span(doc, span.start, span.end - 1, label=span.label_)
    return span


# the candidates: the rule components' doc.spans keys and, where a trained model runs, doc.ents
@Language.factory(
    "kg_mentions",
    default_config={"min_chars": 2},
    requires=["doc.sents", "doc.spans"],
    assigns=["doc.user_data", "doc.spans"],
)
def make_mention_chooser(nlp: Language, name: str, min_chars: int) -> MentionChooser:
    return MentionChooser(nlp, name, min_chars=min_chars)
