"""Paper roles: does the paper propose a method or data set, or use one? (``kg_roles``)

Cue phrases ("we propose X") find the names a paper introduces with a verb, but most proposed
things are introduced otherwise: a coined acronym defined once and repeated, "X, a novel
framework", "our X". This component groups a doc's METHOD and DATASET mentions into concepts (same
text, or an acronym and its long form), describes each concept with sparse features (the cue
role, the words before its first mention, whether its name is coined, defined, repeated, where it
first appears, whether the gazetteer knows it, whether the title names it: ``kg.pipeline.extract``
puts the title in ``doc.user_data["kg_title"]``) and sets every mention's ``role`` from a logistic
regression trained on the annotated roles of ``data/annotations/train.jsonl``
(:func:`fit_roles`, run by ``kg train``). TASK and METRIC mentions keep their cue role.

The model is a JSON file of feature weights (``roles.json`` in the trained pipeline's folder, named by
its ``kg.json``); without one the component leaves the cue roles as they are.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc

from .mentions import MENTIONS_KEY

__all__ = [
    "MODEL_PATH",
    "RoleModel",
    "concept_groups",
    "group_features",
    "window_features",
    "RoleClassifier",
    "fit_roles",
]

#: The shipped role model, beside the shipped NER whose mentions it was fitted on.
MODEL_PATH = Path(__file__).parent / "models" / "sci_ner" / "roles.json"
ROLE_LABELS = ("METHOD", "DATASET")
#: Smallest feature weight :func:`fit_roles` keeps.
MIN_WEIGHT = 0.01
_WORD = re.compile(r"[A-Za-z]+")
_CUE_WORDS = frozenset(
    "propose proposes proposed introduce introduces introduced present presents presented "
    "develop develops developed design designs designed call called name named dub dubbed "
    "term termed release construct constructed curate curated build novel new our we this "
    "namely coined".split()
)


@dataclass
class RoleModel:
    """Logistic regression over sparse binary features: ``weights`` by feature name, ``bias`` and
    the probability at and above which a concept is proposed (``threshold``, tuned on dev)."""

    weights: dict[str, float]
    bias: float = 0.0
    threshold: float = 0.5
    meta: dict[str, Any] = field(default_factory=dict)

    def probability(self, features: Iterable[str]) -> float:
        z = self.bias + sum(self.weights.get(f, 0.0) for f in set(features))
        return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))

    def to_disk(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "bias": self.bias,
            "threshold": self.threshold,
            "meta": self.meta,
            "weights": dict(sorted(self.weights.items())),
        }
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_disk(cls, path: Path) -> RoleModel:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(
            {k: float(v) for k, v in data["weights"].items()},
            float(data["bias"]),
            float(data["threshold"]),
            data.get("meta") or {},
        )


def concept_groups(records: Sequence[dict[str, Any]]) -> list[list[int]]:
    """Indices of the METHOD/DATASET records of one doc, grouped by concept: the same lower-cased
    text, or linked by an acronym definition (its long and short form)."""
    parent: dict[int, int] = {}

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_form: dict[str, int] = {}
    for i, r in enumerate(records):
        if r["label"] not in ROLE_LABELS:
            continue
        parent[i] = i
        for form in {
            r["text"].lower(),
            *(str(r.get(k) or "").lower() for k in ("short_form", "long_form")),
        } - {""}:
            if form in by_form:
                parent[find(i)] = find(by_form[form])
            else:
                by_form[form] = i
    groups: dict[int, list[int]] = {}
    for i in parent:
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values())


@lru_cache(maxsize=1)
def _known_names() -> frozenset[str]:
    """Every name and alias of the gazetteer, lower-cased: things a paper is likely to use, not
    propose (read here, as the gazetteer's span rulers are not in the default pipeline)."""
    from .rules import load_gazetteer

    return frozenset(n.lower() for _label, _canonical, names in load_gazetteer() for n in names)


def _coined(text: str) -> bool:
    words = text.split()
    return any(any(ch.isupper() for ch in w[1:]) or any(ch.isdigit() for ch in w) for w in words)


def _in_title(forms: set[str], title: str) -> tuple[bool, bool]:
    """Whether one of ``forms`` is a whole word of ``title``, and whether the title opens with it
    ("FARTrack: Fast Autoregressive ...", the usual way a paper names what it proposes)."""
    low = title.lower()
    inside = opens = False
    for form in forms:
        f = form.lower()
        if len(f) < 2:
            continue
        for m in re.finditer(re.escape(f), low):
            s, e = m.span()
            if (s == 0 or not low[s - 1].isalnum()) and (e == len(low) or not low[e].isalnum()):
                inside = True
                opens = opens or (s == 0 and low[e : e + 1] in (":", " -", "-"))
    return inside, opens


def group_features(
    text: str,
    records: Sequence[dict[str, Any]],
    group: Sequence[int],
    sent_index: dict[int, int],
    title: str | None = None,
) -> list[str]:
    """The sparse features of one concept (``group``: indices into ``records``)."""
    ms = [records[i] for i in group]
    first = min(ms, key=lambda r: r["start"])
    label = first["label"]
    feats = [f"label={label}", "bias2"]
    if any(r.get("role") == "proposed" for r in ms):
        feats.append("cue_proposed")
    if any(r.get("extractor") == "cue" for r in ms):
        feats.append("from_cue")
    if any(r.get("short_form") for r in ms):
        feats.append("acronym_defined")
    known = _known_names()
    if any(r.get("canonical") for r in ms) or any(r["text"].lower() in known for r in ms):
        feats.append("gazetteer")
    extractors = sorted({r.get("extractor", "") for r in ms})
    feats.extend(f"extractor={e}" for e in extractors)
    n = len(ms)
    feats.append(f"mentions={min(n, 4)}")
    sent = sent_index.get(first["start"], 0)
    feats.append(f"first_sentence={min(sent, 5)}")
    name = max((r["text"] for r in ms), key=len)
    if _coined(name):
        feats.append("coined")
    if any(r["text"].isupper() and len(r["text"]) > 1 for r in ms):
        feats.append("all_caps_form")
    words = name.split()
    feats.append(f"words={min(len(words), 4)}")
    if name[:1].isupper():
        feats.append("capitalised")
    if title:
        forms = {r["text"] for r in ms} | {
            str(r.get(k)) for r in ms for k in ("short_form", "long_form") if r.get(k)
        }
        inside, opens = _in_title(forms, title)
        feats.append("in_title" if inside else "not_in_title")
        if opens:
            feats.append("opens_title")
    for r in ms:
        before = text[max(0, r["start"] - 60) : r["start"]]
        bw = [w.lower() for w in _WORD.findall(before)][-4:]
        for k, w in enumerate(reversed(bw)):
            if w in _CUE_WORDS:
                feats.append(f"before{k}={w}")
                feats.append(f"before_any={w}")
        after = text[r["end"] : r["end"] + 40]
        aw = [w.lower() for w in _WORD.findall(after)][:3]
        for k, w in enumerate(aw):
            if w in _CUE_WORDS or w in {
                "which",
                "that",
                "a",
                "an",
                "is",
                "achieves",
                "outperforms",
                "consistently",
            }:
                feats.append(f"after{k}={w}")
        if after.lstrip().startswith(","):
            feats.append("after_comma")
        sentence = r.get("sentence", "").lower()
        if re.search(
            r"\bwe (?:propose|introduce|present|develop|design|construct|build|release|curate)",
            sentence,
        ):
            feats.append("in_we_propose_sentence")
        if re.search(r"\b(?:outperform|surpass|baseline|compared? (?:to|with)|than)\b", sentence):
            feats.append("in_comparison_sentence")
    for f in list(feats):
        if not f.startswith("label="):
            feats.append(f"{label}:{f}")
    feats.extend(window_features(text, ms))
    return sorted(set(feats))


_WINDOW_TOKEN = re.compile(r"[A-Za-z]+|[(),:;]")
#: Words each side of a mention, inside its sentence, that :func:`window_features` describes.
WINDOW = 4


def window_features(text: str, mentions: Sequence[dict[str, Any]]) -> list[str]:
    """Every word (and bracket or comma) up to :data:`WINDOW` positions each side of each mention,
    inside its sentence, by position ("b0:our", "a1:which"), and the two words just before it as a
    pair ("bb:propose_a"). They carry what the cue lists cannot: a component named after "employs"
    or "consisting of", a baseline after "such as" or "than", a family after "NAME, a novel". On the
    dev split they raise PROPOSES recall at precision 0.9 from 0.74 to about 0.84 (docs/experiments.md)."""
    out: set[str] = set()
    for r in mentions:
        sent_start = r.get("sent_start", 0)
        sent_end = sent_start + len(r.get("sentence", "")) if r.get("sentence") else len(text)
        before = [w.lower() for w in _WINDOW_TOKEN.findall(text[sent_start : r["start"]])][-WINDOW:]
        after = [
            w.lower() for w in _WINDOW_TOKEN.findall(text[r["end"] : max(sent_end, r["end"])])
        ][:WINDOW]
        out.update(f"b{k}:{w}" for k, w in enumerate(reversed(before)))
        out.update(f"a{k}:{w}" for k, w in enumerate(after))
        if len(before) >= 2:
            out.add(f"bb:{before[-2]}_{before[-1]}")
    return sorted(out)


def doc_concepts(
    doc_text: str, records: Sequence[dict[str, Any]], title: str | None = None
) -> list[tuple[list[int], list[str]]]:
    """Every METHOD/DATASET concept of a doc with its features (``title``: the paper's, if known)."""
    sent_starts = sorted({r["sent_start"] for r in records})
    index = {s: k for k, s in enumerate(sent_starts)}
    sent_index = {r["start"]: index[r["sent_start"]] for r in records}
    return [
        (g, group_features(doc_text, records, g, sent_index, title))
        for g in concept_groups(records)
    ]


class RoleClassifier:
    """Pipeline component ``kg_roles``: sets ``role`` on the METHOD/DATASET mention records."""

    def __init__(self, nlp: Language, name: str = "kg_roles", *, model_path: str | None = None):
        self.name = name
        path = Path(model_path) if model_path else MODEL_PATH
        self.model = RoleModel.from_disk(path) if path.exists() else None

    def __call__(self, doc: Doc) -> Doc:
        records = doc.user_data.get(MENTIONS_KEY)
        if not records or self.model is None:
            return doc
        for group, feats in doc_concepts(doc.text, records, doc.user_data.get("kg_title")):
            p = self.model.probability(feats)
            role = "proposed" if p >= self.model.threshold else "used"
            for i in group:
                records[i]["role"] = role
        return doc

    def to_disk(self, path, *, exclude=tuple()):  # noqa: D102
        if self.model is not None:
            self.model.to_disk(Path(path) / "model.json")

    def from_disk(self, path, *, exclude=tuple()):  # noqa: D102
        file = Path(path) / "model.json"
        if file.exists():
            self.model = RoleModel.from_disk(file)
        return self


@Language.factory(
    "kg_roles",
    default_config={"model_path": None},
    requires=["doc.user_data"],
    assigns=["doc.user_data"],
)
def make_role_classifier(nlp: Language, name: str, model_path: str | None) -> RoleClassifier:
    """The ``kg_roles`` component (model_path: a role model JSON; None for the shipped one)."""
    return RoleClassifier(nlp, name, model_path=model_path)


def fit_roles(examples: Sequence[tuple[list[str], bool]], *, c: float = 1.0) -> RoleModel:
    """Fit the logistic regression on ``(features, proposed)`` examples (scikit-learn, ``kg train``)."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = DictVectorizer()
    X = vec.fit_transform([{f: 1 for f in feats} for feats, _ in examples])
    y = [int(label) for _, label in examples]
    clf = LogisticRegression(C=c, max_iter=2000, class_weight="balanced")
    clf.fit(X, y)
    # weights under MIN_WEIGHT move no probability by more than a rounding error: dropped (the
    # window words make tens of thousands of features, most seen a few times)
    weights = {
        name: round(float(w), 4)
        for name, w in zip(vec.get_feature_names_out(), clf.coef_[0])
        if abs(w) >= MIN_WEIGHT
    }
    return RoleModel(
        weights,
        float(clf.intercept_[0]),
        0.5,
        {"examples": len(examples), "positives": sum(y), "c": c},
    )
