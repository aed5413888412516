"""Numeric results tied to a sentence's entities (``kg_results``): "achieves an AO of 70.6% on
GOT-10k", "improves accuracy by 4.3 points over GPTQ", "2.1x faster than FlashAttention".

Rules over tokens, no parser: a ``Matcher`` finds values (a number with ``%``, ``x``/``times``,
``points``, or a decimal), a ``PhraseMatcher`` over the metric gazetteer finds metrics the NER
missed, and the mentions ``kg_mentions`` chose give datasets, methods, tasks and baselines. A value
is written only when a metric sits right beside it ("70.6% AO", "AO of 70.6%", "accuracy by 4.3
points", "2.1x speedup"), the sentence assigns it without "respectively", and it is not part of a
name ("GPT-3.5", "CIFAR-10") or a size ("7B"): precision first, a record that is not sure is not
written. Records go to ``doc.user_data["kg_results"]`` as plain dicts (see
:class:`kg.model.ResultMention` for the fields).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from spacy.language import Language
from spacy.matcher import Matcher, PhraseMatcher
from spacy.tokens import Doc, Span, Token
from spacy.util import filter_spans

from .component import Stateless
from .mentions import MENTIONS_KEY
from .rules import load_gazetteer

__all__ = ["RESULTS_KEY", "ResultReader", "parse_value"]

RESULTS_KEY = "kg_results"
TITLE_KEY = "kg_title"  # extractors.pipeline.TITLE_KEY (which imports this module)
_NUM = r"^[+]?\d+(?:\.\d+)?$"
_FACTOR = r"^\d+(?:\.\d+)?[x×]$"
_DECIMAL = r"^[+]?\d*\.\d+$"

#: Speed and cost words a factor or a reduction measures ("2.1x faster", "40% less memory").
SPEED_WORDS = {
    "faster": "speed",
    "speedup": "speed",
    "speed-up": "speed",
    "speedups": "speed",
    "acceleration": "speed",
    "throughput": "throughput",
    "latency": "latency",
    "memory": "memory",
    "flops": "FLOPs",
    "cost": "cost",
    "costs": "cost",
    "parameters": "parameters",
    "compute": "compute",
    "inference": "speed",
    "training": "training time",
    "time": "time",
    "energy": "energy",
    "tokens": "tokens",
    "communication": "communication",
    "storage": "storage",
}
_IMPROVE = frozenset(
    "improve improves improved improving improvement improvements gain gains boost boosts "
    "boosted boosting outperform outperforms outperformed outperforming surpass surpasses "
    "surpassing exceed exceeds exceeding higher increase increases increased increasing "
    "better margin advance advances raising raises raise lifts lifting enhancement "
    "enhances enhancing uplift".split()
)
#: Comparison verbs that make a value an improvement only with "by" ("outperforms X by 4%").
_NEEDS_BY = frozenset(
    "outperform outperforms outperformed outperforming surpass surpasses surpassing exceed "
    "exceeds exceeding beats beating beat".split()
)
_REDUCE = frozenset(
    "reduce reduces reduced reducing reduction reductions lower lowers lowering less fewer "
    "decrease decreases decreased decreasing cut cuts cutting saving savings saves save "
    "smaller drop compression compresses".split()
)
_SPEED = frozenset(
    "faster speedup speed-up speedups acceleration accelerates accelerating accelerate "
    "speeds speeding".split()
)
#: Words a sentence uses about other people's results; with none of "we/our/proposed" they make
#: the paper's own method unsure.
_OTHERS = frozenset(
    "existing current prior previous state-of-the-art sota baseline baselines humans human "
    "best frontier leading even only strongest top proprietary open-source "
    "commercial".split()
)
_OWN = frozenset("we our ours proposed it this".split())
_EVIDENCE = frozenset(
    "experiments experiment results evaluations evaluation empirically empirical "
    "achieves achieve achieving attains attaining obtains reaching reaches yields "
    "yielding delivers delivering sets setting demonstrate demonstrates show shows".split()
)
_BETWEEN_LEFT = frozenset(
    "of by : = an a to up reaching reach reaches at is was with over nearly about around "
    "approximately roughly average averaged mean absolute relative score scores "
    "gain gains improvement improvements increase boost up-to".split()
)
_BETWEEN_RIGHT = frozenset(
    "absolute relative average averaged mean higher better lower top-1 overall "
    "improvement improvements gain gains increase boost in of".split()
)
_BASELINE_CUES = frozenset(
    "over than vs vs. versus outperforms outperforming outperform outperformed surpasses "
    "surpassing surpass beats beating".split()
)
_QUALIFIERS = {
    "up to": "up to",
    "over": "over",
    "exceeding": "over",
    "exceeds": "over",
    "surpassing": "over",
    "more than": "over",
    "nearly": "nearly",
    "about": "about",
    "around": "about",
    "approximately": "about",
    "roughly": "about",
    "average": "average",
    "at least": "at least",
    "an average of": "average",
    "on average": "average",
}
_SIZE_WORDS = frozenset(
    "b m k billion million thousand gb mb kb hours hour days minutes seconds ms s epochs "
    "steps samples examples images tokens languages tasks datasets benchmarks models "
    "layers parameters params points".split()
)
_STOP_BASELINE = frozenset(", . ; : ( ) by on in across with while and at for , which".split())


#: Metrics the gazetteer does not list, seen in abstracts' result sentences.
EXTRA_METRICS = frozenset(
    {
        "AO",
        "success rate",
        "success rates",
        "pass rate",
        "pass@1",
        "Pass@1",
        "win rate",
        "win rates",
        "Elo",
        "NDCG",
        "nDCG",
        "MRR",
        "Hits@1",
        "Hits@10",
        "Recall@1",
        "R@1",
        "error rate",
        "error rates",
        "ECE",
        "SPL",
        "accuracies",
        "exact match",
        "F1-score",
        "macro F1",
        "AUROC",
        "AUPR",
        "mIoU",
        "PSNR",
        "SSIM",
        "CLIP score",
        "top-1 accuracy",
        "Top-1 accuracy",
        "top-5 accuracy",
        "BLEU",
        "chrF",
        "COMET",
        "ROUGE-L",
        "Spearman",
        "Pearson correlation",
        "correlation",
        "MAPE",
        "CRPS",
        "Sharpe ratio",
        "reward",
        "rewards",
        "return",
        "returns",
        "hit rate",
        "attack success rate",
        "ASR",
        "EER",
        "HD95",
        "Dice",
        "mAP",
        "AP",
        "NDS",
        "ADE",
        "FDE",
        "perplexity",
        "FID",
        "IS",
        "WER",
        "CER",
        "RMSE",
        "MAE",
        "MSE",
        "NMSE",
        "relative error",
        "L2 error",
        "accuracy",
        "precision",
        "recall",
        "coverage",
        "fidelity",
        "agreement",
        "consistency",
    }
)
#: "an AO of 70.6%": a short capitalised name between an article and "of" + number is a metric.
_ACRONYM = re.compile(r"^[A-Z][A-Za-z0-9@\-]{1,7}$")


def parse_value(text: str) -> float | None:
    """The number of a value token ("+4.3" -> 4.3, "2.1x" -> 2.1), None if it has none."""
    match = re.search(r"\d+(?:\.\d+)?|\.\d+", text)
    return float(match.group()) if match else None


@dataclass
class _Mention:
    label: str
    text: str
    start: int  # token indices
    end: int
    start_char: int
    end_char: int
    role: str


@Language.factory("kg_results", default_config={})
def make_result_reader(nlp: Language, name: str) -> ResultReader:
    return ResultReader(nlp, name)


class ResultReader(Stateless):
    """Write each sentence's sure numeric results to ``doc.user_data["kg_results"]``."""

    def __init__(self, nlp: Language, name: str = "kg_results"):
        self.name = name
        self.values = Matcher(nlp.vocab)
        num = {"TEXT": {"REGEX": _NUM}}
        self.values.add("PERCENT", [[num, {"ORTH": "%"}]])
        self.values.add(
            "FACTOR",
            [
                [{"TEXT": {"REGEX": _FACTOR}}],
                [num, {"LOWER": {"IN": ["x", "×", "times", "-fold", "fold"]}}],
                [num, {"ORTH": "-"}, {"LOWER": "fold"}],
            ],
        )
        self.values.add(
            "POINTS",
            [
                [num, {"LOWER": {"IN": ["points", "point", "pp", "pts", "pt", "p.p."]}}],
                [num, {"LOWER": "percentage"}, {"LOWER": {"IN": ["points", "point"]}}],
                [num, {"ORTH": "%"}, {"LOWER": {"IN": ["points", "point"]}}],
            ],
        )
        self.values.add("NUMBER", [[{"TEXT": {"REGEX": _DECIMAL}}]])
        names = {
            alias
            for label, _, aliases in load_gazetteer()
            if label == "METRIC"
            for alias in aliases
        }
        names |= EXTRA_METRICS
        # short capitalised names ("IS", "AP", "EM") only as written: "is" and "ap" are words
        exact = sorted(n for n in names if len(n) <= 5 and any(c.isupper() for c in n))
        self.metrics = PhraseMatcher(nlp.vocab, attr="LOWER")
        self.metrics.add("METRIC", [nlp.make_doc(n) for n in sorted(set(names) - set(exact))])
        self.exact_metrics = PhraseMatcher(nlp.vocab, attr="ORTH")
        self.exact_metrics.add("METRIC", [nlp.make_doc(n) for n in exact])

    def __call__(self, doc: Doc) -> Doc:
        found: list[dict[str, Any]] = []
        doc.user_data[RESULTS_KEY] = found
        if not any(c.isdigit() for c in doc.text):
            return doc  # most abstracts state no number: nothing to read
        records = doc.user_data.get(MENTIONS_KEY, [])
        mentions = _token_mentions(doc, records)
        own = paper_method(records, doc.user_data.get(TITLE_KEY), doc.text)
        lexicon: list[Span] | None = None
        for sent in doc.sents:
            text = sent.text
            if not any(c.isdigit() for c in text) or "respectively" in text.lower():
                continue  # no value; or two parallel lists: which value goes with which name?
            values = filter_spans([v for v in self.values(sent, as_spans=True)])
            if not values:
                continue
            if lexicon is None:
                lexicon = [doc[s:e] for _, s, e in [*self.metrics(doc), *self.exact_metrics(doc)]]
            in_sent = [m for m in mentions if m.start >= sent.start and m.end <= sent.end]
            metric_spans = _metric_spans(
                in_sent,
                [s for s in lexicon if s.start >= sent.start and s.end <= sent.end]
                + _article_metrics(sent),
            )
            previous: tuple[Span, dict[str, Any]] | None = None
            for value in values:
                record = _read_value(doc, sent, value, values, in_sent, metric_spans, own)
                if record is None:
                    continue
                if previous is not None and _conjoined(doc, previous[0], value):
                    # "by 24.9% in MAE and 33.2% in RMSE": the second shares the first's comparison
                    if record["kind"] == "score" and previous[1]["kind"] != "score":
                        record["kind"] = previous[1]["kind"]
                        record["baseline"] = record["baseline"] or previous[1]["baseline"]
                found.append(record)
                previous = (value, record)
        return doc


def _conjoined(doc: Doc, first: Span, second: Span) -> bool:
    """True when ``second`` follows ``first`` through "and" or a comma within six tokens, with
    no verb-like word between ("by 4% in MAE and 3% in RMSE")."""
    gap = _words(doc[first.end : second.start])
    return (
        0 < len(gap) <= 6
        and ("and" in gap or "," in gap)
        and not any(w in _SUBJECT_VERBS or w in _IMPROVE or w in _REDUCE for w in gap)
    )


def paper_method(
    records: Sequence[dict[str, Any]], title: str | None = None, text: str = ""
) -> dict[str, Any] | None:
    """The method the paper proposes: the name its title opens with ("DONOD: Efficient ...")
    when the abstract names it, else its most often named proposed METHOD mention (an acronym's
    short form first), as that mention's record; None when it proposes none by name."""
    named = _title_name(title)
    if named is not None and any(r["text"] == named and r["label"] != "METHOD" for r in records):
        named = None  # "ArtifactsBench: ...": the title names a benchmark, not a method
    if named is not None:
        for r in records:
            if r["label"] == "METHOD" and r["text"] == named:
                return r
        found = re.search(rf"(?<![\w-]){re.escape(named)}(?![\w-])", text)
        if found is not None:
            return {"label": "METHOD", "text": named, "start": found.start(), "end": found.end()}
    proposed = [r for r in records if r["label"] == "METHOD" and r.get("role") == "proposed"]
    if not proposed:
        return None
    counts = Counter(r["text"] for r in records if r["label"] == "METHOD")
    short = {r["short_form"] for r in proposed if r.get("short_form")}
    return max(proposed, key=lambda r: (r["text"] in short, counts[r["text"]], -r["start"]))


def _title_name(title: str | None) -> str | None:
    """The name a title opens with, before ":" ("UniMoD: ...", "LYNX - Lightweight ..."), when
    it looks like a name (one or two words with a capital past the first letter or a digit)."""
    if not title:
        return None
    head = re.split(r":|\s[-–—]\s", title, maxsplit=1)
    if len(head) < 2:
        return None
    name = head[0].strip()
    words = name.split()
    if not 1 <= len(words) <= 2 or "$" in name or "\\" in name:
        return None
    return name if any(c.isupper() for c in name[1:]) or any(c.isdigit() for c in name) else None


def _token_mentions(doc: Doc, records: Iterable[dict[str, Any]]) -> list[_Mention]:
    out = []
    for r in records:
        span = doc.char_span(r["start"], r["end"], alignment_mode="expand")
        if span is not None:
            out.append(
                _Mention(
                    r["label"],
                    r["text"],
                    span.start,
                    span.end,
                    r["start"],
                    r["end"],
                    r.get("role", "used"),
                )
            )
    return out


def _article_metrics(sent: Span) -> list[Span]:
    """ "an AO of 70.6%", "a BLEU of 35.2": an acronym between an article and "of" + number."""
    out = []
    for tok in sent[1:-2]:
        i = tok.i
        doc = tok.doc
        if (
            _ACRONYM.match(tok.text)
            and not tok.text.istitle()
            and doc[i - 1].lower_ in {"a", "an", "the"}
            and doc[i + 1].lower_ == "of"
            and re.match(_NUM, doc[i + 2].text)
        ):
            out.append(doc[i : i + 1])
    return out


#: What the NER may tag as a metric that is a setting or a spread: "+4% out-of-domain",
#: "(inter-rater std = 0.12)".
_SETTINGS = frozenset(
    "out-of-domain in-domain zero-shot few-shot one-shot cross-domain in-distribution "
    "out-of-distribution ood id".split()
)
_SPREADS = frozenset("std sd deviation variance stdev".split())
#: Conditions a value may set, not results: "even with 50% pruning", "at 20% compression ratio".
_CONDITIONS = frozenset(
    {
        "pruning",
        "sparsity",
        "compression",
        "compression ratio",
        "missing rate",
        "missing ratio",
        "masking ratio",
        "noise rate",
    }
)


def _is_metric_name(text: str) -> bool:
    low = text.lower()
    return (
        low not in _SETTINGS
        and low not in _CONDITIONS
        and "=" not in low
        and not set(low.split()) & _SPREADS
        and not re.search(r"\d(\.\d+)?[BM]$", text)  # "exceeding CogVideoX-2B by 18.8%": a model
    )


def _metric_spans(mentions: list[_Mention], lexicon: list[Span]) -> list[_Mention]:
    """METRIC mentions, and gazetteer metrics that overlap no mention or are one under another
    label ("an AO of 70.6%": the NER calls AO a method)."""
    metrics = [m for m in mentions if m.label == "METRIC" and _is_metric_name(m.text)]
    for span in filter_spans(lexicon):
        same = [m for m in mentions if m.start == span.start and m.end == span.end]
        relabelled = bool(same) and same[0].label != "METRIC" and same[0].role != "proposed"
        unclaimed = not any(m.start < span.end and span.start < m.end for m in mentions)
        if (relabelled or unclaimed) and _is_metric_name(span.text):
            metrics.append(
                _Mention(
                    "METRIC",
                    span.text,
                    span.start,
                    span.end,
                    span.start_char,
                    span.end_char,
                    "used",
                )
            )
    return metrics


def _unit(value: Span) -> str:
    name = value.label_
    return {"PERCENT": "%", "FACTOR": "x", "POINTS": "points"}.get(name, "")


def _is_part_of_name(doc: Doc, value: Span, mentions: list[_Mention]) -> bool:
    if any(m.start <= value.start < m.end for m in mentions):
        return True
    first = value[0]
    if first.i > 0:
        before = doc[first.i - 1]
        if not before.whitespace_ and (before.is_alpha or before.text in {"-", "@", "/", "_"}):
            return True  # "GPT-3.5", "pass@1", "top-1"
    end = value[-1]
    if value.label_ == "NUMBER" and end.i + 1 < len(doc):
        after = doc[end.i + 1]
        if after.lower_ in _SIZE_WORDS or (not end.whitespace_ and after.is_alpha):
            return True  # "7.5B", "1.5 hours"
    return False


def _words(tokens: Iterable[Any]) -> list[str]:
    return [t.lower_ for t in tokens]


def _left_metric(doc: Doc, value: Span, metrics: list[_Mention], sent: Span) -> _Mention | None:
    """A metric ending at most four tokens before the value with only linking words between
    ("AO of 70.6%", "accuracy by 4.3 points", "mAP: 45.2")."""
    best = None
    for m in metrics:
        if m.end > value.start or value.start - m.end > 4 or m.start < sent.start:
            continue
        gap = _words(doc[m.end : value.start])
        if all(w in _BETWEEN_LEFT for w in gap) and (
            gap or doc[m.end - 1].text in {":", "="} or value[0].text.startswith("+")
        ):
            if best is None or m.end > best.end:
                best = m
    return best


def _after_value(doc: Doc, metric: _Mention, values: Sequence[Span]) -> bool:
    """True when a metric follows another value ("0.84 rFID 82.2%"): it is that value's."""
    return any(
        metric.start == v.end or (metric.start == v.end + 1 and doc[v.end].lower_ == "in")
        for v in values
    )


def _right_metric(doc: Doc, value: Span, metrics: list[_Mention], sent: Span) -> _Mention | None:
    """A metric starting at most three tokens after the value ("70.6% AO", "4.3% higher accuracy",
    "4.3% improvement in F1")."""
    for m in sorted(metrics, key=lambda m: m.start):
        if m.start < value.end or m.start - value.end > 3 or m.end > sent.end:
            continue
        gap = _words(doc[value.end : m.start])
        if all(w in _BETWEEN_RIGHT for w in gap):
            return m
    return None


def _speed_metric(doc: Doc, value: Span, sent: Span) -> tuple[str, str] | None:
    """(metric, kind) for "2.1x faster", "2.1x speedup", "speedup of 2.1x", "reduces latency by
    40%", "40% less memory", "2x lower latency"."""
    right = _joined(_words(doc[value.end : min(value.end + 5, sent.end)]))[:3]
    left = _joined(_words(doc[max(sent.start, value.start - 8) : value.start]))[-6:]
    bare = list(left)
    for tail in (["up", "to"], ["over"], ["about"], ["nearly"], ["around"], ["approximately"]):
        if bare[-len(tail) :] == tail:
            bare = bare[: -len(tail)]
            break
    if bare[-2:] in (["speedup", "of"], ["speed-up", "of"], ["speedups", "of"]):
        return "speed", "speedup"  # "a speedup of up to 127%", "speedup of 2.1x"
    if value.label_ == "FACTOR":
        if right and right[0] in _SPEED:
            return "speed", "speedup"
        if right and right[0] in {"speedup", "speed-up"}:
            return "speed", "speedup"
        if len(right) >= 2 and right[0] in _REDUCE:
            phrase = _cost_phrase(doc, value.end + 1, sent)
            if phrase:
                return phrase, "reduction"
        if len(right) >= 2 and right[0] in {"higher", "more", "greater", "increase", "improvement"}:
            if right[1] in {"throughput", "speed"}:
                return right[1], "speedup"
        if left[-2:] in (
            ["speedup", "of"],
            ["speed-up", "of"],
            ["speedups", "of"],
            ["acceleration", "of"],
        ):
            return "speed", "speedup"
        if (
            len(left) >= 3
            and left[-1] == "by"
            and left[-3] in _SPEED | {"reduces", "reducing", "reduce", "cuts", "lowers"}
        ):
            # "accelerates inference by 2x", "reduces latency by 3x"
            what = left[-2]
            if left[-3] in _SPEED:
                return "speed", "speedup"
            if what in SPEED_WORDS:
                return SPEED_WORDS[what], "reduction"
        return None
    if value.label_ == "PERCENT":
        if len(right) >= 2 and right[0] in _REDUCE:
            phrase = _cost_phrase(doc, value.end + 1, sent)
            if phrase:
                return phrase, "reduction"
        if len(right) >= 1 and right[0] in {"faster", "speedup", "speed-up", "speedups"}:
            return "speed", "speedup"
        if len(left) >= 3 and left[-1] == "by" and left[-3] in _REDUCE and left[-2] in SPEED_WORDS:
            return SPEED_WORDS[left[-2]], "reduction"
        if len(left) >= 2 and left[-1] == "by" and left[-2] in {"faster", "throughput"}:
            return "speed", "speedup"
    return None


def _joined(words: list[str]) -> list[str]:
    """ "speed - up" (the tokenizer splits it) as one word "speed-up"."""
    out: list[str] = []
    for w in words:
        if len(out) >= 2 and out[-1] == "-" and out[-2] == "speed" and w == "up":
            out[-2:] = ["speed-up"]
        else:
            out.append(w)
    return out


_COST_HEADS = frozenset(
    "memory latency time hours iterations steps flops cost costs parameters compute energy "
    "tokens communication storage overhead usage footprint".split()
)
_PHRASE_STOP = frozenset(
    ", . ; : ( ) with and than compared while in on of for to at across by without".split()
)


def _cost_phrase(doc: Doc, start: int, sent: Span) -> str | None:
    """The cost a reduction is of, as written ("memory", "GPU hours", "training iterations"): up to
    three words after "less/fewer/lower" that end in a cost noun."""
    words = []
    for tok in doc[start : min(start + 3, sent.end)]:
        if tok.lower_ in _PHRASE_STOP or tok.like_num:
            break
        words.append(tok)
    while words and words[-1].lower_ not in _COST_HEADS:
        words.pop()
    return " ".join(t.text for t in words) if words else None


#: A change noun right after the value names its kind ("a 5.9% improvement", "40% reduction").
_CHANGE_NOUNS = {
    "improvement": "improvement",
    "improvements": "improvement",
    "gain": "improvement",
    "gains": "improvement",
    "increase": "improvement",
    "boost": "improvement",
    "reduction": "reduction",
    "reductions": "reduction",
    "decrease": "reduction",
}


_DIRECTION_AFTER = {
    "higher": "improvement",
    "better": "improvement",
    "greater": "improvement",
    "more": "improvement",
    "lower": "reduction",
    "less": "reduction",
    "fewer": "reduction",
    "smaller": "reduction",
}
_CHANGE_ADJECTIVES = frozenset("absolute relative average overall net mean".split())
_LEVEL_ADJECTIVES = frozenset("higher better lower greater".split())


def _kind(doc: Doc, value: Span, sent: Span, metric: _Mention) -> str:
    if value[0].text.startswith("+"):
        return "improvement"
    if metric.text.lower().split()[-1] in _REDUCE:
        return "reduction"  # "72.6% energy reduction"
    right = _words(doc[value.end : value.end + 2])
    if right[:1] and right[0] in _CHANGE_ADJECTIVES:
        right = right[1:]  # "a 5.4% absolute improvement", ">10% relative improvements"
    if right and right[0] in _CHANGE_NOUNS:
        return _CHANGE_NOUNS[right[0]]  # "a 188% improvement", even after "a 98% reduction and"
    before_metric = _words(doc[max(sent.start, metric.start - 3) : metric.start])
    if (
        metric.end <= value.start
        and _words(doc[metric.end : value.start]) == ["of"]
        and not any(w in _CHANGE_NOUNS for w in before_metric)
    ):
        # "a higher win rate of 60.8%", "improves quality with FVD of 12.65": the level reached
        return "score"
    if right[:1] and right[0] in _DIRECTION_AFTER:
        return _DIRECTION_AFTER[right[0]]  # "up to 5% higher accuracy", after "compression ... and"
    clause = _clause_start(doc, sent, value)
    lo = max(clause, min(value.start, metric.start) - 12)
    left = _words(doc[lo : value.start])
    by = "by" in left[-4:]
    if by:
        # "outperforms X on the hardest split of the benchmark by 3%": the verb may be far off
        for w in reversed(_words(doc[clause : value.start])):
            if w in _NEEDS_BY or w in _IMPROVE:
                return "improvement"
            if w in _REDUCE:
                return "reduction"
    for i in range(len(left) - 1, -1, -1):
        w = left[i]
        if w in {
            ",",
            ";",
            "achieves",
            "achieving",
            "achieve",
            "attains",
            "reaching",
            "reaches",
            "obtains",
        } or (w == "to" and (i == 0 or left[i - 1] != "up")):
            break  # "improves X, achieving 70%" and "from 60% to 70%": 70 is a score
        if w in _NEEDS_BY:
            if by:
                return "improvement"
            # "outperforms X ... up to 4% pass@1": a margin or a score? "exceeding a C-index of
            # 0.70": a mark. Unsure either way.
            return "unsure"
        if w in _IMPROVE:
            return "improvement"
        if w in _REDUCE:
            return "reduction"
    for after in (_words(doc[value.end : value.end + 1]), _words(doc[metric.end : metric.end + 1])):
        if after and after[0] in _IMPROVE:
            return "improvement"
        if after and after[0] in _REDUCE:
            return "reduction"
    return "score"


def _dataset(
    doc: Doc, sent: Span, value: Span, anchor_end: int, values: list[Span], mentions: list[_Mention]
) -> _Mention | None:
    """The data set a value is on: the first DATASET mention after the value (or its metric) within
    ten tokens, reached through "on/in/across/for" with no other value between, or a sentence that
    opens with "On D," / "In D,"."""
    datasets = [m for m in mentions if m.label == "DATASET"]
    for m in sorted(datasets, key=lambda m: m.start):
        if m.start < anchor_end or m.start - anchor_end > 10:
            continue
        gap = doc[anchor_end : m.start]
        if any(v.start >= anchor_end and v.end <= m.start for v in values):
            return None
        words = _words(gap)
        if any(w in {"on", "in", "across", "for", "over"} for w in words) and not any(
            w in {";", ",", "(", ")", ":"} for w in words
        ):
            return m
        return None
    for m in datasets:  # "On GOT-10k, ...", "Empirically, on the LRA benchmark, ..."
        if m.start > sent.start + 6 or m.end + 1 >= value.start:
            continue
        comma = doc[m.end].text == "," or (
            doc[m.end].lower_ in {"dataset", "benchmark", "benchmarks"}
            and doc[m.end + 1].text == ","
        )
        if not comma:
            continue
        before = _words(doc[max(sent.start, m.start - 2) : m.start])
        if before[-1:] in (["on"], ["in"]) or before == ["on", "the"] or before == ["in", "the"]:
            return m
    return None


#: The only words allowed between a value and its task: "on the standard", "for all", "in".
_TASK_LINKS = frozenset(
    "on for in across the a an all both several multiple various standard downstream "
    "challenging gain gains improvement improvements relative absolute".split()
)


def _task(doc: Doc, anchor: int, mentions: list[_Mention], single: bool) -> _Mention | None:
    """A TASK named within six tokens after the value through "on/for/in" and linking words only
    ("... on classification tasks"); a task further off, or past a comma, verb or another
    value, is often another clause's, so none is written."""
    tasks = [m for m in mentions if m.label == "TASK"]
    for m in sorted(tasks, key=lambda m: m.start):
        gap = _words(doc[anchor : m.start])
        if (
            0 <= m.start - anchor <= 6
            and any(w in {"on", "for", "in"} for w in gap)
            and all(w in _TASK_LINKS for w in gap)
        ):
            return m
    return None


def _baseline(
    doc: Doc, sent: Span, value: Span, mentions: list[_Mention], values: Sequence[Span] = ()
) -> tuple[str, tuple[int, int] | None] | None:
    """What an improvement is over: the METHOD named after "over/than/outperforms" in the value's
    clause, else up to five plain words after "over the" ("over the strongest baseline"). A cue
    with another value between it and this one is that value's; a name glued to "/" or "-" is
    part of a longer one ("diffusion/GAN baselines"): neither is written."""
    lo, hi = max(sent.start, value.start - 12), min(sent.end, value.end + 12)
    for tok in doc[lo:hi]:
        if tok.lower_ not in _BASELINE_CUES:
            continue
        if tok.i < value.start and tok.lower_ in {"than", "vs", "vs.", "versus"}:
            continue  # "12% higher accuracy than SFT and 3% higher recall": SFT is the 12%'s
        a, b = sorted((tok.i, value.start))
        if any(v.start >= a and v.end <= b and v.start != value.start for v in values):
            continue  # "reduces X by 38.9% while increasing Y by 4.1% over Z": Z is 4.1%'s
        if tok.i >= value.end and any(
            w in {",", ";", "and", "while"} for w in _words(doc[value.end : tok.i])
        ):
            continue  # "by +7.3 rSum on MSCOCO, surpasses Z by ...": Z is the next value's
        stop = next(
            (t.i for t in doc[tok.i + 1 : min(tok.i + 8, sent.end)] if t.text in _STOP_BASELINE),
            tok.i + 8,
        )
        for m in mentions:
            if m.label == "METHOD" and 0 <= m.start - tok.i - 1 <= 6 and m.end <= stop:
                if _glued(doc, m):
                    return None
                between = _words(doc[tok.i + 1 : m.start])
                if not set(between) <= _BASELINE_LEAD:
                    return None  # "than naive reward-agnostic test-time search": cut, unsure
                end = m.end + (
                    1 if m.end < sent.end and doc[m.end].lower_ in _BASELINE_HEADS else 0
                )
                if end < sent.end and doc[end].lower_ not in _BASELINE_END:
                    return None  # "than naive reward-agnostic test-time search": cut, unsure
                if any(
                    o.label == "METHOD" and 0 < o.start - end <= 2 and doc[end].text in {",", "and"}
                    for o in mentions
                ):
                    return None  # "surpasses Claude and ChatGPT-4o": one of a list
                first = tok.i + 1 + (1 if between[:1] and between[0] in {"the", "a", "an"} else 0)
                name = doc[first:end].text if between or end > m.end else m.text
                return name, (m.start_char, m.end_char)
        tokens: list[Token] = []
        for nxt in doc[tok.i + 1 : min(tok.i + 14, sent.end)]:
            if nxt.text in _STOP_BASELINE or nxt.like_num:
                break
            tokens.append(nxt)
        words = "".join(t.text_with_ws for t in tokens).strip().split()[:5]
        if words and (words[-1].endswith("-") or words[-1].lower() in {"of", "the", "a"}):
            return None  # cut inside a name: "the prior state-of"
        if words and words[0].lower() in {
            "the",
            "prior",
            "previous",
            "existing",
            "strong",
            "state-of-the-art",
            "baseline",
            "baselines",
            "standard",
            "vanilla",
            "current",
            "all",
        }:
            return " ".join(words), None
    return None


#: Words a baseline's name may follow ("than standard SFT") or end with ("LSTM baselines").
_BASELINE_LEAD = frozenset("the a an standard vanilla naive original plain base strong".split())
_BASELINE_END = _STOP_BASELINE | frozenset(
    "and or . using when under without despite after to during".split()
)
_BASELINE_HEADS = frozenset("baseline baselines approaches methods models variants".split())


def _glued(doc: Doc, m: _Mention) -> bool:
    """True when the mention is glued to "/" or "-" on either side: part of a longer name."""
    before = doc[m.start - 1] if m.start > 0 else None
    after = doc[m.end] if m.end < len(doc) else None
    return (before is not None and not before.whitespace_ and before.text in {"/", "-"}) or (
        after is not None and not doc[m.end - 1].whitespace_ and after.text in {"/", "-"}
    )


_CLAUSE_BREAKS = frozenset(": ; — – however whereas while but".split())
_SUBJECT_VERBS = frozenset(
    "achieves achieved achieve attains attained reaches reached obtains obtained yields "
    "yielded scores scored improves improved outperforms outperformed surpasses surpassed "
    "reduces reduced delivers delivered sets gets runs records hits exceeds exceeded "
    "boosts boosted lowers cuts gains is was has improve reduce outperform surpass attain "
    "reach obtain yield deliver provides provide".split()
)
_OUR_HEADS = frozenset(
    "method model approach framework system algorithm technique agent pipeline architecture "
    "design solution variant models methods".split()
)


_COMPARED = frozenset("than vs vs. versus against unlike over".split())
#: Before a method, words that make it a host or a tool, not the subject ("Integrated into
#: FlashInfer, SparCas ...", "built on LLaMA", "with GPT-4o as the judge").
_HOSTED = frozenset("into with using via upon on in to within atop from".split())


def _compared_with(doc: Doc, m: _Mention, lo: int, own_name: str | None = None) -> bool:
    """True when the mention is what something is compared with ("Compared to LLaVA-OV-7B, it
    reduces ..."; "than GPTQ") or what it is built into ("Integrated into FlashInfer, ..."):
    then it is not whose the value is."""
    left = _words(doc[max(lo, m.start - 4) : m.start])
    while left and left[-1] in {"the", "a", "an"}:
        left = left[:-1]
    if left[-1:] and left[-1] in _COMPARED:
        return True
    if left[-1:] and left[-1] in _HOSTED and m.role != "proposed" and m.text != own_name:
        return True  # "Integrated into FlashInfer, ..."; "Combined with MED" stays MED's
    text = " ".join(left)
    return any(
        cue in text for cue in ("compared to", "compared with", "relative to", "in contrast to")
    )


def _clause_start(doc: Doc, sent: Span, value: Span) -> int:
    """Where the value's clause begins: after the last ":", ";", dash or "however/while/but"."""
    for i in range(value.start - 1, sent.start - 1, -1):
        if doc[i].lower_ in _CLAUSE_BREAKS:
            return i + 1
    return sent.start


def _method(
    doc: Doc,
    sent: Span,
    value: Span,
    mentions: list[_Mention],
    own: dict[str, Any] | None,
) -> tuple[str | None, tuple[int, int] | None, bool] | None:
    """(name, span, own) of the method a value is of; None when the sentence does not say surely.

    Read in the value's clause: a named METHOD that is the clause's subject ("GPT-4o achieves only
    45%": a benchmark paper's results are other methods'); the paper's own method when the clause
    says "we", "our method/model/...", "proposed", or names a method the paper proposes; nobody's
    when it speaks of others ("existing", "baselines", "even the best", "only"); the paper's own
    when it reports experiments ("experiments show ...") and names no other method first.
    """
    lo = _clause_start(doc, sent, value)
    clause = doc[lo : value.start]
    words = set(_words(clause))
    own_name = own["text"] if own else None
    own_span = (own["start"], own["end"]) if own else None
    methods_before = [
        m
        for m in mentions
        if m.label == "METHOD"
        and m.start >= lo
        and m.end <= value.start
        and not _compared_with(doc, m, lo, own_name)
    ]
    first = methods_before[0] if methods_before else None
    if first is not None and (first.start <= lo + 2 or doc[first.start - 1].text == ","):
        follows = _words(doc[first.end : min(first.end + 3, value.start)])
        if any(w in _SUBJECT_VERBS for w in follows):
            if own_name is not None and first.text == own_name:
                return own_name, own_span, True
            return first.text, (first.start_char, first.end_char), first.role == "proposed"
    subjects = [m for m in methods_before if _is_subject(doc, m, value.start)]
    if subjects:
        # "Evaluating 15 LMMs on MINED shows that Gemini-2.5-Pro achieves ... 63.07": the name
        # right before the verb is the subject, not the benchmark the paper proposes
        m = subjects[-1]
        if own_name is not None and m.text == own_name:
            return own_name, own_span, True
        if {"our", "proposed"} & set(_words(doc[max(lo, m.start - 4) : m.start])):
            return own_name, own_span, True  # "our proposed MoE framework improves ..."
        return m.text, (m.start_char, m.end_char), m.role == "proposed"
    proposed = [m for m in methods_before if m.role == "proposed" or m.text == own_name]
    if proposed:
        m = proposed[0]
        return m.text, (m.start_char, m.end_char), True
    our_method = any(
        t.lower_ == "our" and t.i + 1 < value.start and doc[t.i + 1].lower_ in _OUR_HEADS
        for t in clause
    )
    opening = _words(clause[:6])
    if _generic_subject(opening):
        return None  # "Models achieve F1 scores of 0.9", "while all methods achieve near 100%"
    if _own_subject(opening):
        # "Our method outperforms the strongest baseline by 3%": the others are its object
        return own_name, own_span, True
    if words & _OTHERS:
        return None
    if our_method or words & {"we", "ours", "proposed", "it"}:
        return own_name, own_span, True
    if methods_before:
        return None
    if words & _EVIDENCE:
        return own_name, own_span, True
    return None


_ADVERBS = frozenset("also can could further still consistently significantly even".split())


def _is_subject(doc: Doc, m: _Mention, stop: int) -> bool:
    """True when the name is directly followed by a result verb ("Gemini-2.5-Pro achieves",
    "GBV can improve"), and is not in parentheses ("TRAAC (Qwen3-4B) achieves") nor a
    modifier ("CoRA of TSFMs surpasses")."""
    if m.start > 0 and doc[m.start - 1].lower_ in {"(", "of", "from"}:
        return False
    appositive = m.start > 0 and doc[m.start - 1].text == ","
    for tok in doc[m.end : min(m.end + 3, stop)]:
        if tok.lower_ in _SUBJECT_VERBS:
            return True
        if tok.text == "," and appositive:
            continue  # "the strongest baseline, Claude-opus-4, achieves"
        if tok.lower_ not in _ADVERBS and not tok.lower_.endswith("ly"):
            return False
    return False


_GENERIC_PLURALS = frozenset(
    "models methods approaches systems llms mllms vlms agents baselines humans annotators "
    "detectors classifiers solvers algorithms techniques".split()
)
_SKIP_OPENING = frozenset(
    ", notably moreover furthermore additionally overall also finally".split()
)


def _opening(words: list[str]) -> list[str]:
    while words and words[0] in _SKIP_OPENING:
        words = words[1:]
    return words


def _generic_subject(words: list[str]) -> bool:
    """True when the clause opens with others in general: "Models achieve ...", "all methods"."""
    words = _opening(words)
    if words[:1] and words[0] in {"all", "most", "many", "some", "current", "existing"}:
        words = words[1:]
    return bool(words[:1]) and words[0] in _GENERIC_PLURALS


def _own_subject(words: list[str]) -> bool:
    """True when the clause opens with the paper as subject and a result verb: "Our method
    outperforms ...", "We improve ...", "It achieves ..."."""
    words = _opening(words)
    if words[:1] == ["our"] and len(words) > 2 and words[1] in _OUR_HEADS:
        verb = words[2]
    elif words[:1] and words[0] in {"we", "it"} and len(words) > 1:
        verb = words[1]
    else:
        return False
    return verb in _SUBJECT_VERBS or verb in _IMPROVE or verb in _NEEDS_BY or verb in _REDUCE


def _qualifier(doc: Doc, value: Span, metric: _Mention | None) -> str | None:
    starts = [value.start]
    if metric is not None and metric.end <= value.start:
        starts.append(
            metric.start
            - (1 if metric.start > 0 and doc[metric.start - 1].lower_ in {"a", "an"} else 0)
        )
    for start in starts:
        left = " ".join(_words(doc[max(0, start - 3) : start]))
        for phrase, name in _QUALIFIERS.items():
            if left.endswith(phrase):
                return name
    right = " ".join(_words(doc[value.end : value.end + 2]))
    return "average" if right.startswith("on average") else None


def _listed(doc: Doc, dataset: _Mention, mentions: list[_Mention]) -> bool:
    """True when the data set heads or ends a list of data sets ("MATH500, GSM8K, and AIME",
    "ModelNet40 and ModelNet10"): which value is whose is not said."""
    joiners = {",", "and", "/", "&", "or"}
    for m in mentions:
        if m.label != "DATASET" or m is dataset:
            continue
        if 0 < m.start - dataset.end <= 3:
            gap = _words(doc[dataset.end : m.start])
        elif 0 < dataset.start - m.end <= 3:
            gap = _words(doc[m.end : dataset.start])
        else:
            continue
        if set(gap) <= joiners:
            return True
    return False


#: Names a DATASET mention may carry that are models or hardware ("LLaMA2-13B", "FPGA").
_NOT_DATA = re.compile(
    r"(^(llama|gpt|qwen|mistral|mixtral|gemma|opt|bert|t5|claude|gemini|deepseek|phi)(?![a-z])"
    r"|\d+(\.\d+)?[bm]$|^(fpga|gpu|cpu|tpu|asic|h100|a100)s?$)",
    re.IGNORECASE,
)
_VERSUS = frozenset("vs vs. versus against".split())
#: Before parentheses, words that make what is in them another method's ("including X (18%)").
_PAREN_CUES = frozenset("than over including such vs vs. versus compared unlike beating".split())
_BOUNDS = (
    ["less", "than"],
    ["fewer", "than"],
    ["lower", "than"],
    ["below"],
    ["under"],
    ["within"],
    ["at", "most"],
    ["<"],
    ["≤"],
    ["<="],
)


def _others_number(
    doc: Doc, sent: Span, value: Span, mentions: list[_Mention], own: dict[str, Any] | None
) -> bool:
    """True when the number is, or may be, someone else's or a bound, not the paper's result:
    "(vs. 9.8% for a baseline)", "compared to 52.2%", "37.3 for QuIP", "SecAlign++ (56.4%
    utility)", "less than 60% accuracy"."""
    left = _words(doc[max(sent.start, value.start - 3) : value.start])
    if any(w in _VERSUS for w in left[-2:]) or left[-2:] in (["compared", "to"], ["to", "only"]):
        return True
    if left[-2:] in (["compared", "with"], ["relative", "to"]):
        return True
    wide = _words(doc[max(sent.start, value.start - 8) : value.start])
    for i in range(len(wide) - 1):
        if wide[i] == "compared" and wide[i + 1] in {"to", "with"}:
            between = wide[i + 2 :]
            if not any(w in {",", ";"} or w in _SUBJECT_VERBS or w in _IMPROVE for w in between):
                return True  # "compared to the MIP baseline accuracy of 11%"
    if any(left[-len(b) :] == b for b in _BOUNDS):
        return True  # a bound, or a requirement: "less than 2% false positive rate"
    if left[-1:] == ["at"] or left[-2:] in (["at", "a"], ["at", "an"]):
        return True  # a condition: "56.2% detection rate at a 1% false positive rate"
    own_text = own["text"] if own else None
    others = [m for m in mentions if m.label == "METHOD" and m.text != own_text]
    if left[-1:] and left[-1] in {"'s", "’s"} and value.start >= sent.start + 2:
        # "compared to GPT-5's 37.7%": a possessive names whose number it is
        if own_text is None or doc[value.start - 2].text != own_text:
            return True
    after = _words(doc[value.end : min(value.end + 2, sent.end)])
    if after[:1] and after[0] in {"for", "by", "of", "from"}:
        for m in others:
            if value.end + 1 <= m.start <= value.end + 3:
                return True  # "37.3 for QuIP", "21.2% of GPT-5"
    # inside parentheses that follow another method's name: "SecAlign++ (56.4% utility, ...)"
    for i in range(value.start - 1, max(sent.start, value.start - 12) - 1, -1):
        tok = doc[i]
        if tok.text == ")":
            break
        if tok.text == "(" or ("(" in tok.text and not tok.text.startswith("(")):
            inside = _words(doc[i + 1 : value.start])
            if any(w in _VERSUS for w in inside):
                return True
            if any(m.end in (i, i - 1) for m in others) or tok.text != "(":
                return True  # "SecAlign (56.4% ...)", "by smolagents(20.3% ...)"
            # "outperforms baselines including GPT-4o (18.6% ...)": a compared method's number
            before = _words(doc[_clause_start(doc, sent, value) : i])
            name = doc[i - 1].text if i > sent.start else ""
            return name != own_text and any(
                w in _PAREN_CUES or w.startswith(("outperform", "surpass")) for w in before
            )
    return False


_RISE = frozenset("increase increases increased increasing higher rise rises more".split())


def _worse(doc: Doc, value: Span, metric: _Mention) -> bool:
    """True when an error-like metric is said to rise ("perplexity increase of 0.9")."""
    from kg.results import lower_is_better  # kg.results imports extractors' siblings

    if not lower_is_better(metric.text):
        return False
    lo, hi = min(value.start, metric.start), max(value.end, metric.end)
    return any(w in _RISE for w in _words(doc[max(0, lo - 2) : hi + 1]))


def _untex(name: str) -> str:
    return re.sub(r"\\[a-zA-Z]+\{?|[{}$*]", "", name)


def _looks_like_name(text: str, title_name: str | None = None) -> bool:
    """A method's name, not a description: a capital inside a word or a digit ("FARTrack",
    "GPT-4o", "Exploration-Focused SFT"), one capitalised word ("Flashback"), or the name the
    title opens with ("Prover Agent: ..."); "diffusion model", "Conditional decoding",
    "Aspect-Based Sentiment Analysis" are descriptions."""
    if title_name is not None and text == title_name:
        return True
    words = text.split()
    parts = [part for w in words for part in w.split("-") if part]
    inner_capital = any(c.isupper() for part in parts for c in part[1:]) or any(
        part.isalpha() and part.isupper() for part in parts
    )
    return (
        inner_capital or any(c.isdigit() for c in text) or (len(words) == 1 and text[:1].isupper())
    )


def _cut(text: str, span: tuple[int, int] | None) -> bool:
    """True when the name's span is glued to more of a word ("Open" of "Open-o3 Video")."""
    if span is None:
        return False
    start, end = span
    after = text[end : end + 2]
    before = text[max(0, start - 1) : start]
    return (
        (after[:1].isalnum())
        or (after[:1] in {"-", "/"} and after[1:2].isalnum())
        or before.isalnum()
        or (before == "-" and start >= 2 and text[start - 2].isalnum())
    )


def _read_value(
    doc: Doc,
    sent: Span,
    value: Span,
    values: list[Span],
    mentions: list[_Mention],
    metrics: list[_Mention],
    own: dict[str, Any] | None,
) -> dict[str, Any] | None:
    if _is_part_of_name(doc, value, mentions):
        return None
    if (
        value.start > sent.start
        and doc[value.start - 1].lower_ in {"from", "±", "of"}
        and value.start > sent.start + 1
        and doc[value.start - 2].lower_ in {"from", "improves", "improved"}
    ):
        return None
    if value.start > sent.start and doc[value.start - 1].lower_ == "from":
        return None  # "from 60.1% to 70.2%": the first is the starting point
    if value.start > sent.start and doc[value.start - 1].text in {"±", "+/-", "+-"}:
        return None  # "94.2% ± 1.8%": a spread, not a result
    if (
        value.end < sent.end
        and doc[value.end].text in {"±", "-", "–", "~", "to", "--"}
        and value.end + 1 < sent.end
        and doc[value.end + 1].text[:1].isdigit()
        and doc[value.end].text != "±"
    ):
        return None  # a range "60-70%", "1.3-1.8×", "by 80% to 95%"
    if (
        value.start >= sent.start + 2
        and doc[value.start - 1].lower_ in {"to", "-", "–"}
        and doc[value.start - 2].like_num
        or (
            value.start >= sent.start + 3
            and doc[value.start - 1].lower_ in {"to", "-", "–"}
            and doc[value.start - 2].text == "%"
        )
    ):
        return None  # the upper end of a range "3% to 4%"
    if _others_number(doc, sent, value, mentions, own):
        return None
    after = _words(doc[value.end : min(value.end + 4, sent.end)])
    if any(
        w in {"difference", "differences", "gap", "gaps", "degradation", "drop", "loss"}
        for w in after[:3]
    ):
        return None  # a difference without a direction, or someone's drop: unsure
    number = parse_value(value[0].text)
    if number is None:
        return None
    speed = _speed_metric(doc, value, sent)
    metric_m: _Mention | None = None
    if speed is not None:
        metric_name, kind = speed
        anchor = value.end
    else:
        if value.label_ == "FACTOR":
            return None  # "3x" of what, unsure
        metric_m = _right_metric(doc, value, metrics, sent) or _left_metric(
            doc, value, [m for m in metrics if not _after_value(doc, m, values)], sent
        )
        if metric_m is None:
            return None
        metric_name = metric_m.text
        kind = _kind(doc, value, sent, metric_m)
        if kind == "unsure":
            return None
        anchor = max(value.end, metric_m.end)
        near = _words(doc[max(sent.start, value.start - 4) : value.start])
        if kind == "score" and "by" in near:
            return None  # "outperforms X by an average of 3.1% AUC": a change, kind unsure
    if kind == "improvement" and metric_m is not None and _worse(doc, value, metric_m):
        return None  # "a perplexity increase of 0.9": a loss read as a gain
    method = _method(doc, sent, value, mentions, own)
    if method is None:
        return None
    method_name, method_span, is_own = method
    if method_name is not None and re.search(r"[\\{}$*]", method_name):
        # "\textbf{SemiHVision": LaTeX debris; the paper's own when it is its name, else unsure
        if own is None or _untex(method_name) != _untex(own["text"]):
            return None
        method_name, method_span, is_own = _untex(own["text"]), (own["start"], own["end"]), True
    if method_name is not None and (
        not _looks_like_name(method_name, _title_name(doc.user_data.get(TITLE_KEY)))
        or _cut(doc.text, method_span)
    ):
        # "router", "diffusion model", "test-time scaling": a component or the field, not a
        # name; "Open" of "Open-o3 Video": a cut name. The paper's own stays, nameless.
        if not is_own:
            return None
        method_name, method_span = None, None
    dataset = _dataset(doc, sent, value, anchor, values, mentions)
    if dataset is not None and _listed(doc, dataset, mentions):
        dataset = None  # "Experiments on MATH500, GSM8K, ...": the value is not MATH500's alone
    if dataset is not None and _NOT_DATA.search(dataset.text):
        dataset = None  # "on LLaMA2-13B", "on FPGA": a model or hardware, not a data set
    task = _task(doc, anchor, mentions, len(values) == 1)
    baseline = _baseline(doc, sent, value, mentions, values) if kind != "score" else None
    if baseline is not None and method_span is not None and baseline[1] == method_span:
        baseline = None
    unit = _unit(value)
    return {
        "value": number,
        "unit": unit,
        "kind": kind,
        "metric": metric_name,
        "text": value.text,
        "start": value.start_char,
        "end": value.end_char,
        "sentence": sent.text,
        "sent_start": sent.start_char,
        "dataset": dataset.text if dataset else None,
        "method": method_name,
        "own": is_own,
        "task": task.text if task else None,
        "baseline": baseline[0] if baseline else None,
        "qualifier": _qualifier(doc, value, metric_m),
        "metric_span": [metric_m.start_char, metric_m.end_char] if metric_m is not None else None,
        "dataset_span": [dataset.start_char, dataset.end_char] if dataset else None,
        "method_span": list(method_span) if method_span else None,
        "task_span": [task.start_char, task.end_char] if task else None,
        "extractor": "results",
    }
