"""Resolution: mentions -> entities, so one concept is one node.

Three rules, in order, decide a mention's canonical key:

1. an acronym a paper defines ("Large Language Models (LLMs)") means that paper's long form;
   an acronym a paper uses without defining it means the long form most papers of the corpus give
   it (a vote), so "SD" is Stable Diffusion only where the corpus says so;
2. every key goes through the gazetteer's alias table ("LLM", "large language model");
3. keys are case-folded, dashes and spaces unified, and the head noun made singular with spaCy's
   lookup lemmatizer ("Large Language Models" = "large language model").

A key seen under several labels takes the label most of its mentions carry. Generic phrases
("our method", "this task") never become entities. Everything is in memory and linear in the
number of mentions.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from rapidfuzz import fuzz, process
from spacy.lookups import Table, load_lookups

from extractors.lexicon import is_generic
from extractors.rules import load_gazetteer

from .model import Entity, Mention, Paper, Relation, RelationMention
from .schema import schema_relation

__all__ = [
    "canonical_key",
    "entity_id",
    "Resolution",
    "ResolutionStats",
    "resolve",
    "resolve_relations",
]

_DASHES = re.compile(r"[\u2010-\u2015\u2212\-]+")
_SPACES = re.compile(r"\s+")
_ACRONYM_PLURAL = re.compile(r"^([A-Z0-9][A-Za-z0-9\-]*[A-Z0-9])s$")
_ACRONYM = re.compile(r"^(?=(?:.*[A-Z]){2})[A-Za-z0-9\-+.]{2,15}$")
#: Head nouns that add nothing to a coined name before them ("RANSAC techniques" = "RANSAC").
_NAME_HEADS = frozenset(
    "system systems model models framework frameworks method methods technique techniques "
    "algorithm algorithms approach approaches architecture architectures benchmark benchmarks "
    "dataset datasets corpus metric metrics measure measures score scores toolkit "
    "library suite paradigm".split()
)
_NOT_PLURAL = frozenset(
    "data series news physics mathematics statistics dynamics analysis bias "
    "basis thesis corpus status gas lens process".split()
)


@lru_cache(maxsize=1)
def _lemmas() -> Table:
    """spaCy's English lookup lemmatizer table (from spacy-lookups-data), loaded once."""
    return load_lookups("en", ["lemma_lookup"]).get_table("lemma_lookup")


def _singular(word: str) -> str:
    if word in _NOT_PLURAL or not word.endswith("s") or len(word) < 4:
        return word
    lemma = _lemmas().get(word, word)
    return lemma if lemma != word and len(lemma) >= len(word) - 2 else word


def _name_shaped(word: str) -> bool:
    """A coined-name token: a capital after the first letter (LoRA, ImageNet, JAVELIN) or a digit."""
    return any(ch.isupper() for ch in word[1:]) or any(ch.isdigit() for ch in word)


@lru_cache(maxsize=200_000)
def canonical_key(text: str) -> str:
    """The one key normaliser: case, dashes, spaces and plural unified.

    >>> canonical_key("Large Language Models"), canonical_key("LLMs"), canonical_key("chain-of-thought")
    ('large language model', 'llm', 'chain of thought')
    >>> canonical_key("COTS")  # all capitals: an acronym, not the plural of "cot"
    'cots'
    >>> [canonical_key(t) for t in ("JAVELIN system", "GPT-4 model", "Transformer model", "3D model")]
    ['javelin', 'gpt 4', 'transformer model', '3d model']
    """
    text = unicodedata.normalize("NFKC", text).strip(" .,;:()[]{}\"'")
    words = _SPACES.split(_DASHES.sub(" ", text).strip())
    if not words or words == [""]:
        return ""
    if (
        len(words) > 1
        and words[-1].casefold() in _NAME_HEADS
        and words[0][0].isalpha()
        and all(map(_name_shaped, words[:-1]))
    ):
        words = words[:-1]  # "JAVELIN system", "GLUE benchmark", "BLEU score": the name alone
    plural = _ACRONYM_PLURAL.match(words[-1])
    if plural:
        words[-1] = plural.group(1)
    caps = (
        words[-1].isupper() and len(words[-1]) > 1
    )  # "COTS", "SOTAS": an acronym, not a plural noun
    words = [w.casefold() for w in words]
    if not plural and not caps:
        words[-1] = _singular(words[-1])
    return " ".join(words)


def entity_id(label: str, key: str) -> str:
    """``label:key``, e.g. ``method:large language model`` (the node id in every export)."""
    return f"{label.lower()}:{key}"


@lru_cache(maxsize=4)
def _gazetteer_index(directory: str | None = None) -> dict[str, tuple[str, str]]:
    """canonical key of every gazetteer alias -> (label, canonical key of the entry)."""
    index: dict[str, tuple[str, str]] = {}
    for label, canonical, names in load_gazetteer(directory):
        target = canonical_key(canonical)
        for name in names:
            index.setdefault(canonical_key(name), (label, target))
    return index


@lru_cache(maxsize=4)
def _gazetteer_cased(directory: str | None = None) -> frozenset[str]:
    """Keys whose gazetteer spellings all have capitals or digits: an all-caps coined name like
    "RECALL" may only join an entry that is spelled in capitals somewhere ("recall" is not)."""
    lowercase = {
        canonical_key(n)
        for _l, _c, names in load_gazetteer(directory)
        for n in names
        if n == n.lower()
    }
    return (
        frozenset(canonical_key(n) for _l, _c, names in load_gazetteer(directory) for n in names)
        - lowercase
    )


@dataclass
class ResolutionStats:
    """What resolution did, for the build summary and the log."""

    mentions: int = 0
    surface_forms: int = 0
    entities: int = 0
    dropped_generic: int = 0
    acronyms_resolved_by_vote: int = 0
    label_conflicts: int = 0
    fuzzy_merges: int = 0


@dataclass
class Resolution:
    """Entities by id, and the entity id chosen for each mention (same order as given)."""

    entities: dict[str, Entity] = field(default_factory=dict)
    assignments: list[tuple[Mention, str]] = field(default_factory=list)
    proposed: set[tuple[str, str]] = field(default_factory=set)  # (paper id, entity id)
    #: entity id -> surface form -> why it joined -> how many mentions
    reasons: dict[str, dict[str, dict[str, int]]] = field(default_factory=lambda: defaultdict(dict))
    stats: ResolutionStats = field(default_factory=ResolutionStats)

    def merges(self) -> list[dict]:
        """Entities with more than one surface form, largest first: which forms became which
        entity and why (written as ``merges.jsonl`` beside the graph)."""
        rows = []
        for eid, forms in self.reasons.items():
            if len(forms) < 2:
                continue
            entity = self.entities[eid]
            rows.append(
                {
                    "entity": eid,
                    "name": entity.name,
                    "label": entity.label,
                    "papers": entity.support,
                    "forms": [
                        {
                            "form": form,
                            "mentions": sum(why.values()),
                            "reasons": [  # most common first, ties in the order met
                                f"{reason} (x{n})" if n > 1 else reason
                                for reason, n in sorted(why.items(), key=lambda rn: -rn[1])
                            ],
                        }
                        for form, why in sorted(forms.items())
                    ],
                }
            )
        return sorted(rows, key=lambda r: (-len(r["forms"]), -r["papers"], r["entity"]))


def resolve(
    extracted: Iterable[tuple[Paper, list[Mention]]],
    *,
    gazetteer_dir: str | None = None,
    fuzzy_threshold: float = 92.0,
) -> Resolution:
    """Group mentions into entities across the corpus.

    Args:
        extracted: each paper with its mentions (from :func:`extractors.extract_mentions`).
        gazetteer_dir: a directory of gazetteer files other than the shipped one.
        fuzzy_threshold: rapidfuzz ratio (0-100) from which two keys of one label and one block
            are the same concept; above 100 turns fuzzy matching off.

    Returns:
        A :class:`Resolution`; mentions of generic phrases get no entity and are counted as dropped.
        ``Resolution.reasons`` says why each surface form joined its entity.
    """
    gazetteer = _gazetteer_index(gazetteer_dir)
    stats = ResolutionStats()
    mentions: list[Mention] = []
    defined: dict[str, dict[str, str]] = defaultdict(
        dict
    )  # paper -> short form key -> long form key
    # (short form key or exact mixed-case spelling, label) -> long form keys: the votes a use consults
    label_votes_of_short: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for _paper, paper_mentions in extracted:
        for m in paper_mentions:
            mentions.append(m)
            if m.short_form and m.long_form:
                short_key, long_key = canonical_key(m.short_form), canonical_key(m.long_form)
                if short_key not in defined[m.paper_id]:
                    defined[m.paper_id][short_key] = long_key
                    for lookup in {short_key, _exact_short(m.short_form)}:
                        label_votes_of_short[(lookup, m.label)][long_key] += 1
                        label_votes_of_short[(lookup, "")][long_key] += 1
    stats.mentions = len(mentions)
    majority = _Majority(label_votes_of_short, fuzzy_threshold)

    keyed: list[tuple[Mention, str | None, str]] = []
    label_votes: dict[str, dict[str, int]] = defaultdict(dict)
    gazetteer_targets = {target for _label, target in gazetteer.values()}
    introduced: dict[
        tuple[str, str], str
    ] = {}  # (paper, key) -> label of the paper's "we propose X"
    keyer = _Keyer(majority, stats, gazetteer_dir)
    for m in mentions:
        key, reason = keyer.key(m, defined.get(m.paper_id, {}))
        keyed.append((m, key, reason))
        if key is not None and m.role == "proposed":
            introduced.setdefault((m.paper_id, key), m.label)
    del keyer
    for m, key, _reason in keyed:
        if key is None:
            continue
        votes = label_votes[key]
        if key in gazetteer_targets and key in gazetteer:
            # a gazetteer entry outvotes one stray label
            votes[gazetteer[key][0]] = votes.get(gazetteer[key][0], 0) + 2
        # the paper that introduces a name says what it is, for all its mentions of it
        label = introduced.get((m.paper_id, key), m.label)
        votes[label] = votes.get(label, 0) + 1

    label_of = {
        key: max(counts, key=lambda lab: (counts[lab], lab)) for key, counts in label_votes.items()
    }
    representative, variant_reason = _group_variants(label_votes, label_of, fuzzy_threshold)

    surface: dict[str, dict[str, int]] = defaultdict(dict)
    resolution = Resolution(stats=stats)
    reasons = resolution.reasons
    # (reason, key, mention label) -> (entity id, the whole reason): the same for every mention of
    # one surface form, so each string is made once and shared
    placed: dict[tuple[str, str, str], tuple[str, str]] = {}
    for m, key, reason in keyed:
        if key is None:
            stats.dropped_generic += 1
            continue
        votes = label_votes[key]
        label = label_of[key]
        conflict = len(votes) > 1 and label != m.label
        if conflict:
            stats.label_conflicts += 1
        where = placed.get((reason, key, m.label))
        if where is None:
            whole = reason
            if conflict:
                whole += f"; label vote: {label} ({votes[label]} of {sum(votes.values())} votes)"
            rep = representative[key]
            if rep != key:
                whole += "; " + variant_reason[key]
            where = placed[(reason, key, m.label)] = (entity_id(label, rep), whole)
        eid, reason = where
        entity = resolution.entities.get(eid)
        if entity is None:
            entity = resolution.entities[eid] = Entity(
                id=eid, label=label, name=m.text, key=representative[key]
            )
        eid = entity.id  # one string for every mention's reference to the entity
        aliases = entity.aliases
        aliases.add(m.text)
        if m.long_form:
            aliases.add(m.long_form)
        if m.short_form:
            aliases.add(m.short_form)
        entity.papers.add(m.paper_id)
        entity.mention_count += 1
        forms = surface[eid]
        form = m.long_form or m.text
        forms[form] = forms.get(form, 0) + 1
        why = reasons[eid].setdefault(m.text, {})
        why[reason] = why.get(reason, 0) + 1
        if m.role == "proposed":
            resolution.proposed.add((m.paper_id, eid))
        resolution.assignments.append((m, eid))
    del placed
    for eid, entity in resolution.entities.items():
        entity.name = _display_name(entity, surface[eid], _gazetteer_names(gazetteer_dir))
    stats.surface_forms = len({(m.label, m.text) for m in mentions})
    stats.entities = len(resolution.entities)
    stats.fuzzy_merges = sum(1 for why in variant_reason.values() if why.startswith("fuzzy"))
    return resolution


def resolve_relations(
    relations: Iterable[RelationMention], resolution: Resolution
) -> list[Relation]:
    """Entity-level relations in the schema's types: each relation's head and tail mentions are
    looked up in ``resolution``; relations the schema does not keep, relations with an end that
    became no entity, and relations of an entity with itself are dropped."""
    by_span = {(m.paper_id, m.start, m.end): eid for m, eid in resolution.assignments}
    found = []
    for r in relations:
        head = by_span.get((r.paper_id, r.head_start, r.head_end))
        tail = by_span.get((r.paper_id, r.tail_start, r.tail_end))
        if head is None or tail is None or head == tail:
            continue
        mapped = schema_relation(
            r.label, resolution.entities[head].label, resolution.entities[tail].label
        )
        if mapped is None:
            continue
        rel_type, reverse = mapped
        source, target = (tail, head) if reverse else (head, tail)
        found.append(
            Relation(source, target, rel_type, r.paper_id, r.sentence, r.extractor, r.score)
        )
    return found


_DIGITS = re.compile(r"\d+")
_MIXED_CASE = re.compile(
    r"[a-z].*[A-Z]"
)  # a lowercase letter before a capital: "vLLM", "CoT", "ViT"


def _exact_short(text: str) -> str:
    """A mixed-case acronym as written, less a plural "s" ("vLLMs" -> "vLLM"): "vLLM" (a serving
    library) is not "VLLM" (video LLM), so such spellings only count votes for the same spelling."""
    plural = _ACRONYM_PLURAL.match(text)
    return "=" + (plural.group(1) if plural else text)


class _Majority:
    """The long form an acronym means where a paper uses it without defining it: the one most
    papers that define it give, among the definitions with the use's label when there are enough, and
    only with more than half of those votes once spellings of one long form are counted together
    ("rotary position embedding" = "rotary positional embeddings"); a tie or a split leaves the
    acronym as it is."""

    def __init__(self, votes: dict[tuple[str, str], Counter[str]], threshold: float):
        self.votes = votes
        self.threshold = threshold
        self._cache: dict[tuple[str, str], tuple[str, int, int] | None] = {}

    def _decide(self, lookup: str, label: str) -> tuple[str, int, int] | None:
        if (lookup, label) not in self._cache:
            counts = self.votes.get((lookup, label))
            decided = None
            if counts:
                groups: list[tuple[str, int]] = []
                for long_key, n in counts.most_common():
                    for g, (leader, total) in enumerate(groups):
                        if _same_spelling(long_key, leader, self.threshold):
                            groups[g] = (leader, total + n)
                            break
                    else:
                        groups.append((long_key, n))
                leader, total = max(groups, key=lambda t: t[1])
                n_all = sum(counts.values())
                if 2 * total > n_all:
                    decided = (leader, total, n_all)
            self._cache[(lookup, label)] = decided
        return self._cache[(lookup, label)]

    def winner(self, text: str, key: str, label: str) -> tuple[str, int, int, str] | None:
        """(long form key, votes for it, votes, scope) or None."""
        lookup = _exact_short(text) if _MIXED_CASE.search(text.rstrip("s")) else key
        own, every = self.votes.get((lookup, label)), self.votes.get((lookup, ""))
        # the definitions with the use's label decide when there are enough of them to trust the
        # label (two papers, or a third of the definitions): one stray label does not
        if (
            own
            and every
            and (sum(own.values()) >= 2 or 3 * sum(own.values()) >= sum(every.values()))
        ):
            decided, scope = self._decide(lookup, label), f" as a {label.lower()}"
        else:
            decided, scope = self._decide(lookup, ""), ""
        return None if decided is None else (*decided, scope)


def _same_spelling(a: str, b: str, threshold: float) -> bool:
    """Two keys that spell one concept: equal without spaces, or a rapidfuzz ratio >= ``threshold``
    where every word that differs only changes its ending ("positional" ~ "position") or is a
    stop word ("with" ~ "from"); a word with a prefix ("research" vs "search", "unsupervised" vs
    "supervised") or another word altogether is another concept."""
    if a.replace(" ", "") == b.replace(" ", ""):
        return True
    if not fuzz.ratio(a, b, score_cutoff=threshold):
        return False
    wa, wb = a.split(), b.split()
    if len(wa) != len(wb):
        wa, wb = [w for w in wa if w not in _STOP], [w for w in wb if w not in _STOP]
        if len(wa) != len(wb):  # "pre training" ~ "pretrainng": compare without the spaces
            return bool(fuzz.ratio("".join(wa), "".join(wb), score_cutoff=threshold))
    return all(
        x == y or (x in _STOP and y in _STOP) or (len(x) >= 3 and x[:3] == y[:3])
        for x, y in zip(wa, wb)
    )


_STOP = frozenset("a an and as at by for from in into of on or the to via with without".split())


#: Rows of the fuzzy score matrix of one block taken at a time.
_FUZZY_ROWS = 512


def _group_variants(
    counts: dict[str, dict[str, int]], label_of: dict[str, str], threshold: float
) -> tuple[dict[str, str], dict[str, str]]:
    """Keys of one label that spell one concept: equal without spaces ("fine tuning" =
    "finetuning"), or a rapidfuzz ratio >= ``threshold`` within a block of keys that share their
    first four letters and all their numbers (so "gpt 3" never meets "gpt 4"). Only keys of one
    block are compared, which keeps this near-linear.

    Returns key -> representative key (the most mentioned), and key -> why it was merged.
    """
    parent: dict[str, str] = {}

    def root(k: str) -> str:
        while parent.get(k, k) != k:
            k = parent[k]
        return k

    reasons: dict[str, str] = {}
    weight = {k: sum(c.values()) for k, c in counts.items()}
    blocks: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    compact_seen: dict[tuple[str, str], str] = {}
    for key in sorted(counts, key=lambda k: (-weight[k], k)):
        compact = key.replace(" ", "")
        first = compact_seen.setdefault((label_of[key], compact), key)
        if first != key:
            parent[root(key)] = root(first)
            reasons[key] = f"variant: '{key}' = '{first}' without spaces"
            continue
        blocks[(label_of[key], compact[:4], ",".join(_DIGITS.findall(key)))].append(key)
    if threshold <= 100:
        for members in blocks.values():
            candidates = [k for k in members if len(k) >= 6]
            if len(candidates) < 2:
                continue
            # all pairs of the block scored in C++ (rows at a time, to bound the matrix), met in
            # the order of a double loop over the block
            for lo in range(0, len(candidates), _FUZZY_ROWS):
                scores = process.cdist(
                    candidates[lo : lo + _FUZZY_ROWS],
                    candidates,
                    scorer=fuzz.ratio,
                    score_cutoff=threshold,
                    dtype=np.float64,
                )
                # row lo + i pairs with the candidates after it only
                for i, j in zip(*np.nonzero(np.triu(scores, lo + 1)), strict=True):
                    a, b, score = candidates[lo + i], candidates[j], scores[i, j]
                    if root(a) != root(b) and _same_spelling(a, b, threshold):
                        parent[root(b)] = root(a)
                        reasons[b] = (
                            f"fuzzy: '{b}' ~ '{a}' (ratio {score:.0f}, same label and block)"
                        )
    groups: dict[str, list[str]] = defaultdict(list)
    for key in counts:
        groups[root(key)].append(key)
    compact_weight: Counter[str] = Counter()
    for key, w in weight.items():
        compact_weight[key.replace(" ", "")] += w
    representative: dict[str, str] = {}
    for members in groups.values():
        if len(members) == 1:  # most keys: nothing to choose between, nothing merged
            representative[members[0]] = members[0]
            continue
        # the most mentioned spelling; ties go to the one written with fewer spaces
        best = max(
            members, key=lambda k: (compact_weight[k.replace(" ", "")], weight[k], -k.count(" "), k)
        )
        for k in members:
            representative[k] = best
            if k != best and k not in reasons:
                reasons[k] = f"variant of '{best}'"
    return representative, reasons


class _Keyer:
    """Canonical key for each mention (None when it names nothing in particular) and why.

    The answer depends on the mention's spelling, label, extractor and gazetteer match, and on its
    paper's own acronym definitions only when it is an acronym its paper defines: every other
    answer is kept by spelling, so each of a corpus's mentions costs a dictionary lookup, and the
    mentions of one spelling share one reason string."""

    def __init__(
        self, majority: _Majority, stats: ResolutionStats, gazetteer_dir: str | None = None
    ) -> None:
        self.majority = majority
        self.stats = stats
        self.gazetteer_dir = gazetteer_dir
        #: spelling -> (key, reason, whether by acronym vote, key its paper's definitions are
        #: looked up by or None)
        self._known: dict[tuple, tuple[str | None, str, bool, str | None]] = {}

    def key(self, m: Mention, paper_defs: dict[str, str]) -> tuple[str | None, str]:
        spelling = (m.text, m.label, m.extractor, m.canonical, m.long_form, m.short_form)
        known = self._known.get(spelling)
        if known is None:  # the answer for a paper that defines no acronym
            known = self._known[spelling] = self._decide(m, None)
        if known[3] is not None and known[3] in paper_defs:
            known = self._decide(m, paper_defs)
        if known[2]:
            self.stats.acronyms_resolved_by_vote += 1
        return known[0], known[1]

    def _decide(
        self, m: Mention, paper_defs: dict[str, str] | None
    ) -> tuple[str | None, str, bool, str | None]:
        """(key, reason, by vote, lookup key): ``paper_defs`` None decides as if the paper defined
        no acronym, and says by which key its definitions would change that."""
        by_vote = False
        lookup = None
        if m.canonical:
            key, reason = canonical_key(m.canonical), f"gazetteer: alias of '{m.canonical}'"
        elif m.long_form and m.short_form:
            key, reason = (
                canonical_key(m.long_form),
                f"acronym: its paper defines '{m.short_form}' as '{m.long_form}'",
            )
        else:
            key, reason = (
                canonical_key(m.text),
                "same key after case, dash and plural normalisation",
            )
            if _ACRONYM.match(m.text.rstrip("s")):
                lookup = key
                if paper_defs is not None and key in paper_defs:
                    key, reason = (
                        paper_defs[key],
                        f"acronym: its paper defines it as '{paper_defs[key]}'",
                    )
                else:
                    won = self.majority.winner(m.text, key, m.label)
                    if won is not None:
                        long_key, n_for, n_all, scope = won
                        reason = f"acronym vote: {n_for} of {n_all} papers that define '{m.text}'{scope} mean '{long_key}'"
                        key = long_key
                        by_vote = True
        if not key or is_generic(key) or (m.extractor != "acronym" and is_generic(m.text)):
            return None, "generic", by_vote, lookup
        gazetteer = _gazetteer_index(self.gazetteer_dir)
        if key not in gazetteer:
            return key, reason, by_vote, lookup
        if (
            m.text.isupper()
            and len(m.text) > 1
            and not m.canonical
            and key == canonical_key(m.text)
            and key not in _gazetteer_cased(self.gazetteer_dir)
        ):
            # "RECALL" is not "recall"
            return m.text, "all-caps name kept apart from the lowercase word", by_vote, lookup
        if gazetteer[key][1] != key:
            reason += f"; gazetteer: '{key}' is an alias of '{gazetteer[key][1]}'"
        return gazetteer[key][1], reason, by_vote, lookup


@lru_cache(maxsize=4)
def _gazetteer_names(directory: str | None = None) -> dict[str, str]:
    """canonical key -> the gazetteer's own spelling of the entry."""
    return {
        canonical_key(canonical): canonical
        for _label, canonical, _names in load_gazetteer(directory)
    }


def _display_name(entity: Entity, forms: dict[str, int], gazetteer_names: dict[str, str]) -> str:
    """The best surface form: the gazetteer's spelling, else the most frequent long form (ties: the
    spelling with capitals, "Stable Diffusion" over "stable diffusion")."""
    if entity.key in gazetteer_names:
        return gazetteer_names[entity.key]
    if len(forms) == 1:  # most entities: their one form (what the choice below would give)
        return next(iter(forms))
    candidates = [f for f in forms if canonical_key(f) == entity.key] or list(forms)
    by_case: Counter[str] = Counter()
    for f in candidates:
        by_case[f.casefold()] += forms[f]

    def sentence_cased(f: str) -> bool:  # "Deep learning" at a sentence start, not a name
        return " " in f and f[0].isupper() and f[1:] == f[1:].lower()

    return max(
        candidates,
        key=lambda f: (by_case[f.casefold()], not sentence_cased(f), forms[f], -len(f), f),
    )
