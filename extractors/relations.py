"""Typed relations between entity mentions (SciERC's seven labels) from a span-pair classifier.

Every unordered pair of non-overlapping entity spans in one sentence is one candidate. A
multinomial logistic regression over sparse features of the pair (both labels, head and edge words,
the words between them, distance, the entities between them, cue words) chooses one of
``2 * 7 + 1`` classes: a relation label with its direction (``>``: the first span in the text is
the head; ``<``: the second is) or ``NONE``. Training lives in :mod:`extractors.relations_train`;
this module holds the pure helpers and the ``kg_relations`` pipeline component.

The component writes plain data to ``doc.user_data`` (so multiprocessing ``nlp.pipe`` keeps it):

- ``"kg_span_relations"``: every predicted relation between the candidate spans (statistical spans
  and kg mentions), ``[head_start, head_end, tail_start, tail_end, label, score]`` in token offsets
  (end exclusive); ``kg eval`` scores these;
- ``"kg_relations"``: the product relations, whose both ends are ``doc.user_data["kg_mentions"]``,
  as ``{"head": [start_char, end_char], "tail": [...], "label", "score", "extractor": "relations"}``.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from spacy.attrs import LOWER
from spacy.language import Language
from spacy.tokens import Doc

from kg.schema import PRODUCT_TO_SCIERC, SCIERC_RELATION_LABELS

from .mentions import MENTIONS_KEY

__all__ = [
    "RELATION_LABELS",
    "SYMMETRIC_LABELS",
    "NONE",
    "RELATIONS_KEY",
    "SPAN_RELATIONS_KEY",
    "MODEL_DIR",
    "EntSpan",
    "RelationModel",
    "pair_features",
    "PairFeaturizer",
    "sentence_candidates",
    "predict_sentence",
    "decode_class",
    "same_concept",
    "RelationExtractor",
]

#: The classifier's relation labels: SciERC's seven.
RELATION_LABELS: tuple[str, ...] = SCIERC_RELATION_LABELS
#: Labels whose two ends can be swapped; SciERC writes them mostly in text order.
SYMMETRIC_LABELS: frozenset[str] = frozenset({"COMPARE", "CONJUNCTION"})
NONE = "NONE"
RELATIONS_KEY = "kg_relations"
SPAN_RELATIONS_KEY = "kg_span_relations"
#: The trained model shipped as package data.
MODEL_DIR = Path(__file__).parent / "models" / "relations"
#: Words between two spans that often decide the relation (conjoined with the pair's labels).
CUES: tuple[str, ...] = (
    "for",
    "on",
    "than",
    "such",
    "of",
    "and",
    "or",
    "in",
    "to",
    "by",
    "with",
    "from",
    "as",
    "using",
    "use",
    "used",
    "based",
    "compared",
    "including",
    "like",
    "is",
    "are",
    "which",
    "between",
    "outperforms",
    "improves",
    "evaluate",
    "evaluated",
    "applied",
    "into",
    "over",
    "via",
    "e.g.",
)
_CUE_SET = frozenset(CUES)

#: An entity span: (start, end, label), token offsets in the document, end exclusive.
EntSpan = tuple[int, int, str]


def _bucket(n: int) -> str:
    if n <= 4:
        return str(n)
    if n <= 7:
        return "5-7"
    if n <= 12:
        return "8-12"
    return "13+"


def pair_features(
    lower: Sequence[str], sent_start: int, sent_end: int, ents: Sequence[EntSpan], i: int, j: int
) -> list[str]:
    """Sparse features of the candidate pair ``(ents[i], ents[j])``, ``ents[i]`` first in the text.

    Args:
        lower: the lower-cased tokens of the whole document.
        sent_start, sent_end: the sentence's token range (end exclusive).
        ents: the sentence's entity spans sorted by start (then end), see :func:`sentence_candidates`.
        i, j: indices into ``ents`` with ``i < j``.

    RETURNS (list[str]): feature names (the classifier ignores the ones it has not seen).
    """
    a, b = ents[i], ents[j]
    la, lb = a[2], b[2]
    labels = f"{la}|{lb}"
    ha, hb = lower[a[1] - 1], lower[b[1] - 1]
    fa, fb = lower[a[0]], lower[b[0]]
    between = list(lower[a[1] : b[0]]) if a[1] <= b[0] else []
    nb = len(between)
    feats = [
        "bias",
        "L=" + labels,
        "La=" + la,
        "Lb=" + lb,
        "ha=" + ha,
        "hb=" + hb,
        "hab=" + ha + "|" + hb,
        "fa=" + fa,
        "fb=" + fb,
        "Lha=" + la + "|" + ha,
        "Lhb=" + lb + "|" + hb,
        "lenA=" + _bucket(a[1] - a[0]),
        "lenB=" + _bucket(b[1] - b[0]),
        "dist=" + _bucket(nb),
        "Ldist=" + labels + "|" + _bucket(nb),
        "before=" + (lower[a[0] - 1] if a[0] > sent_start else "<s>"),
        "after=" + (lower[b[1]] if b[1] < sent_end else "</s>"),
        "afterA=" + (lower[a[1]] if a[1] < sent_end else "</s>"),
        "beforeB=" + (lower[b[0] - 1] if b[0] > sent_start else "<s>"),
    ]
    if a[1] > b[0]:
        feats.append("overlap")
    if nb == 0:
        feats.append("bw=<none>")
        feats.append("Lbw=" + labels + "|<none>")
    else:
        feats.append("bf=" + between[0])
        feats.append("bl=" + between[-1])
        feats.append("Lbf=" + labels + "|" + between[0])
        feats.append("Lbl=" + labels + "|" + between[-1])
        if nb <= 4:
            feats.append("bseq=" + " ".join(between))
            feats.append("Lbseq=" + labels + "|" + " ".join(between))
        for w in sorted(set(between)):
            feats.append("bw=" + w)
            if w in _CUE_SET:
                feats.append("Lcue=" + labels + "|" + w)
        for k in range(nb - 1):
            feats.append("bb=" + between[k] + " " + between[k + 1])
        joined = " " + " ".join(between) + " "
        if " such as " in joined:
            feats.append("cue=such as")
        if " as well as " in joined:
            feats.append("cue=as well as")
    # entities strictly between the pair
    mids = [e for e in ents[i + 1 : j] if e[0] >= a[1] and e[1] <= b[0]]
    feats.append("nmid=" + _bucket(len(mids)))
    for e in mids:
        feats.append("midL=" + e[2])
    if mids:
        feats.append("Lnmid=" + labels + "|" + _bucket(len(mids)))
    else:
        feats.append("Ladjacent=" + labels)
    # "we ... A ... B": the authors' own method and what it is for
    if any(w in ("we", "our") for w in lower[sent_start : a[0]]):
        feats.append("we_before")
    # where the pair sits among the sentence's spans: A the first, B the last (SciERC CV +1 F1)
    first, last = i == 0, j == len(ents) - 1
    feats.append("a_first" if first else "a_notfirst")
    feats.append("b_last" if last else "b_notlast")
    feats.append(f"Lpos={labels}|{first:d}{last:d}")
    return feats


class _Ids(dict):
    """``key -> index.get(prefix + key)``, filled on first use."""

    __slots__ = ("index", "prefix")

    def __init__(self, index: dict[str, int], prefix: str):
        super().__init__()
        self.index = index
        self.prefix = prefix

    def __missing__(self, key: str) -> int | None:
        value = self[key] = self.index.get(self.prefix + key)
        return value


_BUCKETS = ("0", "1", "2", "3", "4", "5-7", "8-12", "13+")


class PairFeaturizer:
    """The rows of :func:`pair_features` in a model's feature index, fast: what depends on one
    span, one word or one label pair is looked up once per sentence (or cached across documents)
    instead of being spelled out as a string for every pair.

    :meth:`_SentenceFeatures.rows` gives the row ids of exactly the features ``pair_features``
    writes and ``index`` knows, in the same order, so a set of them is the very set
    :meth:`RelationModel.batch_scores` builds and the scores add up identically. The index must
    not change while the featurizer is in use (the component makes a new one for a new model).
    """

    _MAX_CACHE = 500_000  # entries kept across documents before the caches start afresh

    def __init__(self, index: dict[str, int]):
        self.index = index
        self._clear()

    def _clear(self) -> None:
        index = self.index
        # one id cache per feature template ("ha=" + head word of A, ...), named as the template
        self.ha = _Ids(index, "ha=")
        self.hb = _Ids(index, "hb=")
        self.fa = _Ids(index, "fa=")
        self.fb = _Ids(index, "fb=")
        self.before = _Ids(index, "before=")
        self.after = _Ids(index, "after=")
        self.afterA = _Ids(index, "afterA=")
        self.beforeB = _Ids(index, "beforeB=")
        self.bf = _Ids(index, "bf=")
        self.bl = _Ids(index, "bl=")
        self.bw = _Ids(index, "bw=")
        self.La = _Ids(index, "La=")
        self.Lb = _Ids(index, "Lb=")
        self.midL = _Ids(index, "midL=")
        self.lenA = _Ids(index, "lenA=")
        self.lenB = _Ids(index, "lenB=")
        self.hab = _Ids(index, "hab=")
        self.bseq = _Ids(index, "bseq=")
        self.pairs: dict[tuple[str, str], tuple] = {}
        self.labelled: dict[str, _Ids] = {}  # "La|ha" style features: Lha=, Lhb=

    def _pair(self, la: str, lb: str) -> tuple:
        entry = self.pairs.get((la, lb))
        if entry is None:
            get = self.index.get
            labels = f"{la}|{lb}"
            entry = self.pairs[(la, lb)] = (
                get("L=" + labels),
                {b: get("Ldist=" + labels + "|" + b) for b in _BUCKETS},
                get("Lbw=" + labels + "|<none>"),
                {b: get("Lnmid=" + labels + "|" + b) for b in _BUCKETS},
                get("Ladjacent=" + labels),
                _Ids(self.index, "Lbf=" + labels + "|"),
                _Ids(self.index, "Lbl=" + labels + "|"),
                _Ids(self.index, "Lbseq=" + labels + "|"),
                _Ids(self.index, "Lcue=" + labels + "|"),
                {k: get("Lpos=" + labels + "|" + k) for k in ("00", "01", "10", "11")},
            )
        return entry

    def _labelled(self, prefix: str) -> _Ids:
        ids = self.labelled.get(prefix)
        if ids is None:
            ids = self.labelled[prefix] = _Ids(self.index, prefix)
        return ids

    def sentence(
        self, lower: Sequence[str], sent_start: int, sent_end: int, ents: Sequence[EntSpan]
    ) -> _SentenceFeatures:
        """Per-sentence lookups for the spans ``ents`` (sorted, see :func:`sentence_candidates`)."""
        if len(self.hab) + len(self.bseq) + len(self.bw) > self._MAX_CACHE:
            self._clear()  # a long run: keep memory bounded
        return _SentenceFeatures(self, lower, sent_start, sent_end, ents)


class _SentenceFeatures:
    """What :meth:`rows` needs of one sentence, computed once: each span's own features as the
    first and as the second of a pair, and the bigram feature at each position."""

    def __init__(
        self,
        feat: PairFeaturizer,
        lower: Sequence[str],
        sent_start: int,
        sent_end: int,
        ents: Sequence[EntSpan],
    ):
        self.feat = feat
        self.lower = lower
        self.ents = ents
        get = feat.index.get
        self.get = get
        we = sent_end
        for k in range(sent_start, sent_end):
            if lower[k] in ("we", "our"):
                we = k
                break
        first: list[tuple] = []
        second: list[tuple] = []
        for s, e, label in ents:
            head, start = lower[e - 1], lower[s]
            before = lower[s - 1] if s > sent_start else "<s>"
            after = lower[e] if e < sent_end else "</s>"
            n = _bucket(e - s)
            first.append(
                (
                    feat.La[label],
                    feat.ha[head],
                    feat.fa[start],
                    feat._labelled("Lha=" + label + "|")[head],
                    feat.lenA[n],
                    feat.before[before],
                    feat.afterA[after],
                    s > we,
                )
            )
            second.append(
                (
                    feat.Lb[label],
                    feat.hb[head],
                    feat.fb[start],
                    feat._labelled("Lhb=" + label + "|")[head],
                    feat.lenB[n],
                    feat.after[after],
                    feat.beforeB[before],
                )
            )
        self.first = first
        self.second = second
        self.bias = get("bias")
        self.overlap = get("overlap")
        self.bw_none = get("bw=<none>")
        self.we_before = get("we_before")
        self.a_first, self.a_notfirst = get("a_first"), get("a_notfirst")
        self.b_last, self.b_notlast = get("b_last"), get("b_notlast")
        self.cue_such_as = get("cue=such as")
        self.cue_as_well_as = get("cue=as well as")
        self.nmid = {b: get("nmid=" + b) for b in _BUCKETS}
        self.dist = {b: get("dist=" + b) for b in _BUCKETS}
        self.sent_start = sent_start
        end = max(e for _s, e, _l in ents) if ents else sent_start
        self.bigrams = [
            get("bb=" + lower[k] + " " + lower[k + 1]) for k in range(sent_start, end - 1)
        ]

    def rows(self, i: int, j: int) -> list[int]:
        """Row ids of ``pair_features(lower, sent_start, sent_end, ents, i, j)`` that the index knows,
        in that function's order (repeats kept)."""
        feat = self.feat
        ents, lower = self.ents, self.lower
        a, b = ents[i], ents[j]
        fa, fb = self.first[i], self.second[j]
        pair_id, ldist, lbw_none, lnmid, ladjacent, lbf, lbl, lbseq, lcue, lpos = feat._pair(
            a[2], b[2]
        )
        nb = b[0] - a[1] if a[1] <= b[0] else 0
        dist = _bucket(nb)
        ids = [
            self.bias,
            pair_id,
            fa[0],
            fb[0],
            fa[1],
            fb[1],
            feat.hab[lower[a[1] - 1] + "|" + lower[b[1] - 1]],
            fa[2],
            fb[2],
            fa[3],
            fb[3],
            fa[4],
            fb[4],
            self.dist[dist],
            ldist[dist],
            fa[5],
            fb[5],
            fa[6],
            fb[6],
        ]
        if a[1] > b[0]:
            ids.append(self.overlap)
        if nb == 0:
            ids.append(self.bw_none)
            ids.append(lbw_none)
        else:
            between = lower[a[1] : b[0]]
            first_w, last_w = between[0], between[-1]
            ids.append(feat.bf[first_w])
            ids.append(feat.bl[last_w])
            ids.append(lbf[first_w])
            ids.append(lbl[last_w])
            if nb <= 4:
                seq = " ".join(between)
                ids.append(feat.bseq[seq])
                ids.append(lbseq[seq])
            bw = feat.bw
            append = ids.append
            for w in sorted(set(between)):
                append(bw[w])
                if w in _CUE_SET:
                    append(lcue[w])
            if nb > 1:
                k0 = a[1] - self.sent_start
                ids.extend(self.bigrams[k0 : k0 + nb - 1])
            joined = " " + " ".join(between) + " "
            if " such as " in joined:
                ids.append(self.cue_such_as)
            if " as well as " in joined:
                ids.append(self.cue_as_well_as)
        mids = [e for e in ents[i + 1 : j] if e[0] >= a[1] and e[1] <= b[0]]
        nmid = _bucket(len(mids))
        ids.append(self.nmid[nmid])
        for e in mids:
            ids.append(feat.midL[e[2]])
        ids.append(lnmid[nmid] if mids else ladjacent)
        if fa[7]:
            ids.append(self.we_before)
        first, last = i == 0, j == len(ents) - 1
        ids.append(self.a_first if first else self.a_notfirst)
        ids.append(self.b_last if last else self.b_notlast)
        ids.append(lpos[("1" if first else "0") + ("1" if last else "0")])
        return [r for r in ids if r is not None]


def decode_class(name: str) -> tuple[str, bool] | None:
    """``"USED-FOR>"`` -> ("USED-FOR", True): the first span in the text is the head; ``"NONE"`` -> None."""
    if name == NONE:
        return None
    return name[:-1], name[-1] == ">"


@dataclass
class RelationModel:
    """A multinomial linear model over sparse binary features.

    Attributes:
        classes: class names, ``NONE`` first, then ``LABEL>`` / ``LABEL<``.
        features: feature name -> row of ``weights`` (the intercept is the ``bias`` feature's row).
        weights: ``(n_features, n_classes)`` float32.
        threshold: log-odds added to the ``NONE`` score at prediction time (tuned on dev; negative
            favours recall).
        meta: training settings and dev scores.
    """

    classes: list[str]
    features: dict[str, int]
    weights: np.ndarray
    threshold: float = 0.0
    meta: dict[str, Any] | None = None

    def scores(self, feats: Iterable[str]) -> np.ndarray:
        """Class probabilities of one candidate (with ``threshold`` applied to ``NONE``)."""
        return self.batch_scores([feats])[0]

    def batch_scores(self, batch: Sequence[Iterable[str]]) -> np.ndarray:
        """Class probabilities of several candidates, ``(len(batch), n_classes)``, in one gather."""
        index = self.features
        rows: list[int] = []
        starts: list[int] = []
        for feats in batch:
            starts.append(len(rows))
            rows.extend({index[f] for f in feats if f in index})
        return self.row_scores(rows, starts)

    def row_scores(self, rows: Sequence[int], starts: Sequence[int]) -> np.ndarray:
        """Class probabilities of ``len(starts)`` candidates given as feature rows: candidate ``k``
        has the rows ``rows[starts[k]:starts[k + 1]]`` (each row once)."""
        n = len(starts)
        z = np.zeros((n, len(self.classes)))
        if rows:
            bounds = np.fromiter(starts, dtype=np.intp, count=n)
            ends = np.empty_like(bounds)
            ends[:-1] = bounds[1:]
            ends[-1] = len(rows)
            nonempty = ends > bounds
            gathered = self._weights64()[np.fromiter(rows, dtype=np.intp, count=len(rows))]
            z[nonempty] = np.add.reduceat(gathered, bounds[nonempty], axis=0)
        z[:, 0] += self.threshold
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def _weights64(self) -> np.ndarray:
        """``weights`` as float64, made once per weights array (replace the array, don't edit it)."""
        cached = getattr(self, "_w64", None)
        if cached is None or cached[0] is not self.weights:
            cached = self._w64 = (self.weights, self.weights.astype(np.float64))
        return cached[1]

    def to_disk(self, path: str | Path) -> None:
        """Write ``weights.npz`` (float16), ``features.txt`` (one name a line) and ``model.json``."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        names = sorted(self.features, key=self.features.__getitem__)
        np.savez_compressed(path / "weights.npz", weights=self.weights.astype(np.float16))
        (path / "features.txt").write_text("\n".join(names) + "\n", encoding="utf-8")
        cfg = {"classes": self.classes, "threshold": self.threshold, "meta": self.meta or {}}
        (path / "model.json").write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def from_disk(cls, path: str | Path) -> RelationModel:
        """Read a model written by :meth:`to_disk`.

        Raises:
            ModelError: the directory holds no model, or its parts do not agree.
        """
        from kg.errors import ModelError

        path = Path(path)
        if not (path / "model.json").exists():
            raise ModelError(
                f"{path}: no relation model here (model.json missing); run `kg train relations`"
            )
        cfg = json.loads((path / "model.json").read_text(encoding="utf-8"))
        names = (path / "features.txt").read_text(encoding="utf-8").split("\n")[:-1]
        with np.load(path / "weights.npz") as data:
            weights = data["weights"].astype(np.float32)
        if weights.shape != (len(names), len(cfg["classes"])):
            raise ModelError(
                f"{path}: weights {weights.shape} do not match {len(names)} features "
                f"and {len(cfg['classes'])} classes"
            )
        return cls(
            list(cfg["classes"]),
            {n: k for k, n in enumerate(names)},
            weights,
            float(cfg["threshold"]),
            cfg.get("meta") or {},
        )


def sentence_candidates(ents: Iterable[EntSpan]) -> list[EntSpan]:
    """One sentence's entity spans, deduplicated by span (first label wins), sorted by position."""
    seen: dict[tuple[int, int], str] = {}
    for s, e, label in ents:
        seen.setdefault((s, e), label)
    return sorted((s, e, label) for (s, e), label in seen.items())


def predict_sentence(
    model: RelationModel,
    lower: Sequence[str],
    sent_start: int,
    sent_end: int,
    ents: Iterable[EntSpan],
) -> list[tuple[EntSpan, EntSpan, str, float]]:
    """Relations in one sentence: ``(head, tail, label, probability)``, at most one per pair of
    spans; overlapping spans are never paired."""
    spans = sentence_candidates(ents)
    pairs = [
        (i, j)
        for i in range(len(spans))
        for j in range(i + 1, len(spans))
        if spans[i][1] <= spans[j][0]
    ]
    if not pairs:
        return []
    probs = model.batch_scores(
        [pair_features(lower, sent_start, sent_end, spans, i, j) for i, j in pairs]
    )
    out: list[tuple[EntSpan, EntSpan, str, float]] = []
    for (i, j), p in zip(pairs, probs):
        k = int(p.argmax())
        decoded = decode_class(model.classes[k])
        if decoded is None:
            continue
        label, forward = decoded
        head, tail = (spans[i], spans[j]) if forward else (spans[j], spans[i])
        out.append((head, tail, label, float(p[k])))
    return out


def same_concept(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two mention records name one concept: the same text, or an acronym and its long
    form ("Neural Additive Models (NAMs)"); no relation is emitted between them."""
    ta, tb = a.get("text", "").lower(), b.get("text", "").lower()
    if ta == tb:
        return True
    forms_a = {str(a.get(k) or "").lower() for k in ("long_form", "short_form", "canonical")} - {""}
    forms_b = {str(b.get(k) or "").lower() for k in ("long_form", "short_form", "canonical")} - {""}
    same_canonical = bool(a.get("canonical")) and a.get("canonical") == b.get("canonical")
    return same_canonical or tb in forms_a or ta in forms_b


class RelationExtractor:
    """Pipeline component: relations between the statistical spans and the kg mentions of a doc."""

    def __init__(
        self,
        nlp: Language,
        name: str = "kg_relations",
        *,
        model_path: str | None = None,
        spans_key: str | None = None,
        min_score: float | None = None,
        label_min_scores: dict[str, float] | None = None,
    ):
        self.name = name
        self.spans_key = spans_key
        self.model = RelationModel.from_disk(model_path or MODEL_DIR)
        self.min_score = 0.5 if min_score is None else float(min_score)
        # the operating point chosen for precision (kg train): per label; a label left out is never kept
        self.label_min_scores = (
            None if label_min_scores is None else {k: float(v) for k, v in label_min_scores.items()}
        )

    def keeps(self, label: str, score: float) -> bool:
        """Whether a relation of ``label`` with probability ``score`` becomes a product relation."""
        if self.label_min_scores is not None:
            return label in self.label_min_scores and score >= self.label_min_scores[label]
        return score >= self.min_score

    def cutoffs(self) -> dict[str, float] | float:
        return dict(self.label_min_scores) if self.label_min_scores is not None else self.min_score

    def candidate_spans(
        self, doc: Doc
    ) -> tuple[list[EntSpan], dict[tuple[int, int], dict[str, Any]]]:
        """Candidate spans (token offsets, SciERC labels) and which of them are kg mentions
        (token span -> the mention record).

        A statistical span keeps its own label; a kg mention that no statistical span matches gets
        its product label mapped to SciERC's; a statistical span overlapping a kg mention is dropped.
        """
        mentions: dict[tuple[int, int], dict[str, Any]] = {}
        labels: dict[tuple[int, int], str] = {}
        taken = [False] * len(doc)
        for record in doc.user_data.get(MENTIONS_KEY, []):
            span = doc.char_span(record["start"], record["end"], alignment_mode="contract")
            if span is None or not len(span):
                continue
            mentions[(span.start, span.end)] = record
            labels[(span.start, span.end)] = PRODUCT_TO_SCIERC.get(record["label"], record["label"])
            for k in range(span.start, span.end):
                taken[k] = True
        if self.spans_key is not None:
            statistical = list(doc.spans[self.spans_key]) if self.spans_key in doc.spans else []
        else:
            statistical = list(doc.ents)
        for span in statistical:
            key = (span.start, span.end)
            if key in mentions or not any(taken[span.start : span.end]):
                labels[key] = PRODUCT_TO_SCIERC.get(span.label_, span.label_)
        return [(s, e, label) for (s, e), label in sorted(labels.items())], mentions

    def __call__(self, doc: Doc) -> Doc:
        spans, mentions = self.candidate_spans(doc)
        found: list[list[Any]] = []
        product: list[dict[str, Any]] = []
        if len(spans) > 1:
            # what predict_sentence does sentence by sentence, with the pairs of the whole doc
            # scored in one gather (PairFeaturizer gives the same feature rows, faster)
            strings = doc.vocab.strings
            lower = [strings[h] for h in doc.to_array(LOWER).tolist()]
            bounds = (
                [(s.start, s.end) for s in doc.sents]
                if doc.has_annotation("SENT_START")
                else [(0, len(doc))]
            )
            featurizer = self._featurizer()
            pairs: list[tuple[EntSpan, EntSpan]] = []
            rows: list[int] = []
            starts: list[int] = []
            span_starts = [
                sp[0] for sp in spans
            ]  # spans are sorted: a sentence's are a run of them
            for start, end in bounds:
                lo, hi = bisect_left(span_starts, start), bisect_left(span_starts, end)
                if hi - lo < 2:
                    continue
                inside = [sp for sp in spans[lo:hi] if sp[1] <= end]
                if len(inside) < 2:
                    continue
                cands = sentence_candidates(inside)
                sentence = None
                for i in range(len(cands)):
                    for j in range(i + 1, len(cands)):
                        if cands[i][1] > cands[j][0]:
                            continue
                        if sentence is None:
                            sentence = featurizer.sentence(lower, start, end, cands)
                        starts.append(len(rows))
                        rows.extend(set(sentence.rows(i, j)))
                        pairs.append((cands[i], cands[j]))
            if pairs:
                probs = self.model.row_scores(rows, starts)
                classes = self.model.classes
                for (first, second), p, k in zip(pairs, probs, probs.argmax(axis=1).tolist()):
                    decoded = decode_class(classes[k])
                    if decoded is None:
                        continue
                    label, forward = decoded
                    head, tail = (first, second) if forward else (second, first)
                    score = float(p[k])
                    found.append([head[0], head[1], tail[0], tail[1], label, round(score, 4)])
                    h, t = mentions.get(head[:2]), mentions.get(tail[:2])
                    if h is None or t is None or not self.keeps(label, score) or same_concept(h, t):
                        continue
                    product.append(
                        {
                            "head": [h["start"], h["end"]],
                            "tail": [t["start"], t["end"]],
                            "label": label,
                            "score": round(score, 4),
                            "extractor": "relations",
                        }
                    )
        doc.user_data[SPAN_RELATIONS_KEY] = found
        doc.user_data[RELATIONS_KEY] = product
        return doc

    def _featurizer(self) -> PairFeaturizer:
        """A :class:`PairFeaturizer` for the current model (rebuilt when the model is replaced)."""
        featurizer = getattr(self, "_pair_featurizer", None)
        if featurizer is None or featurizer.index is not self.model.features:
            featurizer = self._pair_featurizer = PairFeaturizer(self.model.features)
        return featurizer

    def to_disk(self, path, *, exclude=tuple()):  # noqa: D102
        self.model.to_disk(path)

    def from_disk(self, path, *, exclude=tuple()):  # noqa: D102
        self.model = RelationModel.from_disk(path)
        return self


@Language.factory(
    "kg_relations",
    default_config={
        "model_path": None,
        "spans_key": None,
        "min_score": None,
        "label_min_scores": None,
    },
    requires=["doc.sents", "doc.user_data"],
    assigns=["doc.user_data"],
)
def make_relation_extractor(
    nlp: Language,
    name: str,
    model_path: str | None,
    spans_key: str | None,
    min_score: float | None,
    label_min_scores: dict[str, float] | None,
) -> RelationExtractor:
    """The ``kg_relations`` component.

    model_path (str | None): a relation model directory; None for the one shipped in
        ``extractors/models/relations``.
    spans_key (str | None): read statistical spans from ``doc.spans[spans_key]`` instead of ``doc.ents``.
    min_score (float | None): the least probability of a product relation (``doc.user_data["kg_relations"]``);
        ``kg_span_relations``, which ``kg eval`` scores, keeps every prediction. None: 0.5.
    label_min_scores (dict | None): per relation label, the least probability instead (a label it
        lacks is never a product relation); ``kg train`` chooses them for precision on SciERC dev and
        ``load_pipeline`` reads them from the trained pipeline's ``kg.json``.
    RETURNS (RelationExtractor): the component.
    """
    return RelationExtractor(
        nlp,
        name,
        model_path=model_path,
        spans_key=spans_key,
        min_score=min_score,
        label_min_scores=label_min_scores,
    )
