"""Rebuild the shipped scientific-entity pipeline (``extractors/models/sci_ner``) from the shared data.

``train(...)`` writes the training corpora (``extractors.convert``), optionally trains compact
in-domain word vectors and (not in the shipped recipe) pretrains the tok2vec on in-domain abstracts
(``spacy pretrain``), runs ``spacy train`` with the committed config
(``extractors/configs/sci_ner.cfg``, seeds fixed) and copies the best pipeline, trimmed, to the
output directory. ``crossval_tdmsci(...)`` measures the TDMSci figure by k-fold cross-validation.

The data directory defaults to ``$KG_SHARED_DATA``, else ``shared/data`` beside the repository.
"""

from __future__ import annotations

import json
import logging
import os
import random
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from extractors.convert import (
    annotation_docs,
    conll_docs,
    scierc_docs,
    scirex_docs,
    write_docbin,
)
from kg.schema import SCIERC_TO_PRODUCT, SCIREX_TO_PRODUCT, TDMSCI_TO_PRODUCT

#: Progress of the long steps; ``kg train`` shows it on stderr.
log = logging.getLogger(__name__)

__all__ = [
    "CONFIG",
    "MODEL_DIR",
    "default_data_dir",
    "ANNOTATIONS",
    "PRODUCT",
    "build_corpora",
    "build_product_corpora",
    "vector_text",
    "train_vectors",
    "pretrain_text",
    "pretrain_tok2vec",
    "train",
    "crossval_tdmsci",
    "train_recipe",
    "finish_roles",
]

CONFIG = Path(__file__).parent / "configs" / "sci_ner.cfg"
MODEL_DIR = Path(__file__).parent / "models" / "sci_ner"

#: Training recipe of the shipped model (see README's model table for what each part is worth).
#: The first round's recipe (README: run "base"): SciERC once, its data-set names as DATASET.
FIRST_ROUND: dict[str, Any] = {
    "scirex_sample": 0.1,
    "tdmsci": True,
    "dataset_label": True,
    "vectors": True,
    "tdmsci_mask": "auto",
    "scierc_repeat": 1,
    "pretrain": False,
    "seed": 0,
}
#: The shipped recipe (README: run rep2_nosplit): SciERC twice, its Material kept whole. Better on
#: the seed means than the first round's (SciERC dev +1.0, Material +4.1, TDMSci -1.5); its seed-0
#: model on all of TDMSci scores SciERC dev 61.2 (Material 35.1, within the seeds' spread).
DEFAULTS: dict[str, Any] = {**FIRST_ROUND, "dataset_label": False, "scierc_repeat": 2}
#: Steps of the stage-1 model that masks TDMSci and SciREX (see ``train``).
STAGE1_STEPS = 2000
#: Stage-1 corpus options (whatever the final model's: SciERC once, its data-set names as DATASET).
STAGE1_OPTIONS: dict[str, Any] = {"dataset_label": True, "scierc_repeat": 1}


#: The in-domain annotations shipped with the repository (data/annotations/).
ANNOTATIONS = Path(__file__).resolve().parents[1] / "data" / "annotations"
#: The shipped recipe: the product's four labels learned from the in-domain annotations
#: (``annotations_repeat`` copies of train.jsonl and of any user files) with SciERC train mapped onto
#: the four labels ``scierc_repeat`` times, TDMSci's TASK/DATASET/METRIC and a 10% sample of SciREX's
#: sentences as partial annotations (unlabelled tokens missing); checkpoints are chosen on the
#: in-domain dev split. docs/experiments.md has what each ingredient is worth.
PRODUCT: dict[str, Any] = {
    "annotations_repeat": 3,
    "scierc_repeat": 1,
    "tdmsci": True,
    "scirex_sample": 0.1,
    "vectors": True,
    "pretrain": False,
    "seed": 0,
    "max_steps": 8000,
}


def default_data_dir() -> Path:
    """``$KG_SHARED_DATA``, else the ``shared/data`` folder next to the repository."""
    env = os.environ.get("KG_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1].parent / "shared" / "data"


def build_corpora(
    data_dir: Path,
    out_dir: Path,
    *,
    tdmsci: bool = True,
    tdmsci_keep: set[int] | None = None,
    scirex_sample: float = 0.0,
    dataset_label: bool = True,
    tdmsci_mask: Path | None = None,
    scierc_repeat: int = 1,
    seed: int = 0,
) -> dict[str, Path]:
    """Write ``train.spacy`` (SciERC train [+ TDMSci] [+ a SciREX sample]) and ``dev.spacy`` (SciERC dev).

    tdmsci_mask: a trained pipeline whose Method/OST/Generic/Material spans are missing in TDMSci
        sentences (OST/Generic/Material in SciREX ones), every other unlabelled token being ``O``
        (else all unlabelled tokens of those sources are missing).
    RETURNS (dict): {"train": path, "dev": path}.
    """
    import spacy

    vocab = spacy.blank("en").vocab
    mask_nlp = spacy.load(tdmsci_mask) if tdmsci_mask else None
    out_dir.mkdir(parents=True, exist_ok=True)

    def train_docs() -> Iterator[Any]:
        for _ in range(scierc_repeat):  # SciERC's conventions outweigh the partial sources
            yield from scierc_docs(
                data_dir / "scierc" / "train.json", vocab, dataset_label=dataset_label
            )
        if tdmsci:
            yield from conll_docs(
                data_dir / "tdmsci" / "train.conll", vocab, keep=tdmsci_keep, mask_nlp=mask_nlp
            )
        if scirex_sample > 0:
            yield from scirex_docs(
                data_dir / "scirex" / "train.jsonl",
                vocab,
                sample=scirex_sample,
                seed=seed,
                mask_nlp=mask_nlp,
            )

    paths = {"train": out_dir / "train.spacy", "dev": out_dir / "dev.spacy"}
    n_train = write_docbin(train_docs(), paths["train"])
    # dev (checkpoint selection): name-like Materials as DATASET whatever the training split, since
    # the model's DATASET predictions are scored as Material by kg eval
    n_dev = write_docbin(
        scierc_docs(data_dir / "scierc" / "dev.json", vocab, dataset_label=True), paths["dev"]
    )
    log.info("corpora: %d training docs, %d dev docs -> %s", n_train, n_dev, out_dir)
    return paths


def build_product_corpora(
    data_dir: Path,
    out_dir: Path,
    *,
    annotations: list[Path],
    dev: list[Path],
    annotations_repeat: int = PRODUCT["annotations_repeat"],
    scierc_repeat: int = PRODUCT["scierc_repeat"],
    tdmsci: bool = PRODUCT["tdmsci"],
    scirex_sample: float = PRODUCT["scirex_sample"],
    seed: int = 0,
) -> dict[str, Path]:
    """Write ``train.spacy`` and ``dev.spacy`` in the product's labels (METHOD, DATASET, TASK, METRIC).

    Train: the annotated abstracts ``annotations_repeat`` times (kg's tokenizer on the text kg reads,
    every other token O); SciERC train ``scierc_repeat`` times with Method, Task and Metric kept,
    Materials that look like names as DATASET and the rest O; TDMSci's TASK/DATASET/METRIC and a
    SciREX sample with unlabelled tokens missing. Dev: the annotated ``dev`` files.
    """
    import spacy

    from kg.annotations import load

    vocab = spacy.blank("en").vocab
    out_dir.mkdir(parents=True, exist_ok=True)
    gold = load(annotations) if annotations else []

    def train_docs() -> Iterator[Any]:
        for _ in range(annotations_repeat):
            yield from annotation_docs(gold)
        for _ in range(scierc_repeat):
            for doc in scierc_docs(data_dir / "scierc" / "train.json", vocab, dataset_label=True):
                yield _relabel(doc, SCIERC_TO_PRODUCT)
        if tdmsci:
            yield from conll_docs(
                data_dir / "tdmsci" / "train.conll",
                vocab,
                label_map=TDMSCI_TO_PRODUCT,
                partial=True,
            )
        if scirex_sample > 0:
            yield from scirex_docs(
                data_dir / "scirex" / "train.jsonl",
                vocab,
                label_map=SCIREX_TO_PRODUCT,
                sample=scirex_sample,
                seed=seed,
            )

    paths = {"train": out_dir / "train.spacy", "dev": out_dir / "dev.spacy"}
    n_train = write_docbin(train_docs(), paths["train"])
    n_dev = write_docbin(annotation_docs(load(dev)), paths["dev"])
    log.info(
        "corpora: %d training docs (%d annotated abstracts x %d), %d dev docs -> %s",
        n_train,
        len(gold),
        annotations_repeat,
        n_dev,
        out_dir,
    )
    return paths


def _relabel(doc: Any, label_map: dict[str, str]) -> Any:
    """The same doc with entity labels mapped; a label the map lacks becomes O (SciERC annotates
    every token, so its other terms are known not to be one of the four)."""
    from spacy.tokens import Span

    ents = [
        Span(doc, e.start, e.end, label=label_map[e.label_])
        for e in doc.ents
        if e.label_ in label_map
    ]
    doc.set_ents(ents, default="outside")
    return doc


def vector_text(data_dir: Path, path: Path) -> int:
    """Write lower-cased, tokenised in-domain text (corpora abstracts, SciREX, SciERC train) for vectors.

    RETURNS (int): the number of tokens written.
    """
    import spacy

    tokenizer: Any = spacy.blank("en").tokenizer
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for source in sorted((data_dir / "corpora").glob("*.jsonl")):
            texts: list[str] = []
            with source.open(encoding="utf-8") as handle:
                for line in handle:
                    record = json.loads(line)
                    texts.extend(record[k] for k in ("title", "abstract") if record.get(k))
            for doc in tokenizer.pipe(texts, batch_size=1000):
                words = [t.text.lower() for t in doc if not t.is_space]
                count += len(words)
                out.write(" ".join(words) + "\n")
        with (data_dir / "scirex" / "train.jsonl").open(encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                for start, end in record["sentences"]:
                    out.write(" ".join(w.lower() for w in record["words"][start:end]) + "\n")
                    count += end - start
        with (data_dir / "scierc" / "train.json").open(encoding="utf-8") as handle:
            for line in handle:
                for sentence in json.loads(line)["sentences"]:
                    out.write(" ".join(w.lower() for w in sentence) + "\n")
                    count += len(sentence)
    return count


def train_vectors(
    data_dir: Path,
    out_dir: Path,
    *,
    dim: int = 100,
    rows: int = 20000,
    epoch: int = 5,
    seed: int = 0,
) -> Path:
    """Train small in-domain word vectors (fastText CBOW through the ``floret`` package, one thread,
    so the same on every run; ``seed`` is kept for the interface) and return a blank spaCy pipeline directory holding the ``rows`` most frequent words,
    keyed by their lower-case form (``attr=LOWER``): 20,000 x 100 floats, about 8 MB.

    Hashed-subword (floret) vectors were tried first and cost about ten times more CPU to train.
    """
    try:
        import floret  # type: ignore[import-not-found]
    except ImportError as err:
        from kg.errors import ModelError

        raise ModelError(
            "kg train needs the floret package for its word vectors: pip install -e .[train]"
        ) from err
    import spacy
    from spacy.training.initialize import convert_vectors

    out_dir.mkdir(parents=True, exist_ok=True)
    text = out_dir / "text.txt"
    if not text.exists():
        log.info("vectors: %d tokens of text", vector_text(data_dir, text))
    model = floret.train_unsupervised(
        str(text),
        model="cbow",
        mode="fasttext",
        minn=0,
        maxn=0,
        minCount=5,
        dim=dim,
        epoch=epoch,
        ws=5,
        thread=1,
        verbose=0,  # one thread: the same vectors on every run
    )
    vec_path = out_dir / "vectors.vec"
    words = model.get_words()[:rows]
    with vec_path.open("w", encoding="utf-8") as out:
        out.write(f"{len(words)} {dim}\n")
        for word in words:
            out.write(word + " " + " ".join(f"{x:.5f}" for x in model.get_word_vector(word)) + "\n")
    nlp = spacy.blank("en")
    convert_vectors(nlp, vec_path, truncate=0, prune=-1, mode="default", attr="LOWER")
    vectors_dir = out_dir / "pipeline"
    nlp.to_disk(vectors_dir)
    return vectors_dir


def _vector_settings(vectors_dir: Path | None) -> dict[str, Any]:
    """Config overrides that make the tok2vec read the static vectors in ``vectors_dir`` (if any)."""
    if vectors_dir is None:
        return {}
    return {
        "paths.vectors": str(vectors_dir),
        "components.tok2vec.model.embed.include_static_vectors": True,
    }


def pretrain_text(data_dir: Path, path: Path, *, n: int = 20000, seed: int = 0) -> int:
    """Write ``n`` distinct abstracts of ``corpora/`` (title, a full stop, abstract; original case, as
    the NER will read them) as spaCy JSON lines ``{"text": ...}``, in a seeded shuffle of all venues.

    RETURNS (int): the number of abstracts written.
    """
    seen: set[str] = set()
    texts: list[str] = []
    for source in sorted((data_dir / "corpora").glob("*.jsonl")):
        with source.open(encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                abstract = record.get("abstract") or ""
                if len(abstract) < 200 or abstract[:200] in seen:
                    continue
                seen.add(abstract[:200])
                texts.append(f"{record.get('title') or ''}. {abstract}".strip())
    random.Random(seed).shuffle(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for text in texts[:n]:
            out.write(json.dumps({"text": text}) + "\n")
    return min(n, len(texts))


def pretrain_tok2vec(
    data_dir: Path,
    out_dir: Path,
    *,
    config: Path = CONFIG,
    vectors_dir: Path | None = None,
    epochs: int = 1,
    texts: int = 20000,
    overrides: dict[str, Any] | None = None,
    seed: int = 0,
) -> Path:
    """Pretrain the config's tok2vec (``spacy pretrain``, the config's ``[pretraining]``: predict each
    word's first and last four characters from its context) on in-domain abstracts and return the
    weights file of the last epoch, for ``[initialize] init_tok2vec``.

    Why: the NER sees 15,000 labelled sentences; the abstracts teach the CNN what 2020s ML text looks
    like. One epoch over 20,000 abstracts (4.3M words) takes about 18 minutes on one core.
    """
    from spacy.training.pretrain import pretrain
    from spacy.util import load_config

    raw = out_dir / "text.jsonl"
    if not raw.exists():
        log.info("pretraining: %d abstracts", pretrain_text(data_dir, raw, n=texts, seed=seed))
    settings: dict[str, Any] = {
        "paths.raw_text": str(raw),
        "pretraining.max_epochs": epochs,
        "system.seed": seed,
        **_vector_settings(vectors_dir),
        **(overrides or {}),
    }
    pretrain(
        load_config(config, overrides=settings, interpolate=True), out_dir, use_gpu=-1, silent=False
    )
    return out_dir / "model-last.bin"


def _trim(model_dir: Path) -> None:
    """Make a trained pipeline fit to ship: no machine paths in its config, a kg name in its meta."""
    from spacy.util import load_config

    config_path = model_dir / "config.cfg"
    config = load_config(config_path, interpolate=False)
    for key in list(config["paths"]):
        config["paths"][key] = None
    config.to_disk(config_path)
    meta_path = model_dir / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta["name"] = "sci_ner"
    labels = set(meta.get("labels", {}).get("ner", []))
    meta["description"] = (
        "kg scientific-entity NER: METHOD, DATASET, TASK and METRIC as a reader of 2020s ML abstracts "
        "marks them, trained from kg's annotations (data/annotations), SciERC and in-domain word vectors (kg train)"
        if labels and labels <= {"METHOD", "DATASET", "TASK", "METRIC"}
        else "kg scientific-entity NER: SciERC's six labels plus DATASET, trained from SciERC, TDMSci, "
        "SciREX and in-domain word vectors (kg train --scierc-recipe)"
    )
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")


def train(
    output: Path = MODEL_DIR,
    data_dir: Path | None = None,
    *,
    config: Path = CONFIG,
    work_dir: Path | None = None,
    overrides: dict[str, Any] | None = None,
    tdmsci: bool = DEFAULTS["tdmsci"],
    tdmsci_keep: set[int] | None = None,
    scirex_sample: float = DEFAULTS["scirex_sample"],
    dataset_label: bool = DEFAULTS["dataset_label"],
    vectors: bool | Path = DEFAULTS["vectors"],
    tdmsci_mask: Path | str | None = DEFAULTS["tdmsci_mask"],
    scierc_repeat: int = DEFAULTS["scierc_repeat"],
    pretrain: bool | Path = DEFAULTS["pretrain"],
    seed: int = DEFAULTS["seed"],
    annotations: list[Path] | None = None,
    dev_annotations: list[Path] | None = None,
    annotations_repeat: int = PRODUCT["annotations_repeat"],
) -> dict[str, Any]:
    """Train the pipeline and copy the best one to ``output``.

    annotations: in-domain annotation files; when given, the model learns the product's four labels
        (:func:`build_product_corpora`, checkpoints chosen on ``dev_annotations``) and ``dataset_label``
        and ``tdmsci_mask`` are not used. Without them, the older SciERC recipe (six labels + DATASET).

    pretrain: start the final model's tok2vec from :func:`pretrain_tok2vec`'s weights (True: pretrain
        now; a path: weights from an earlier run). The stage-1 mask model starts from scratch.

    RETURNS (dict): ``output``, ``seconds`` and spaCy's best dev scores.
    """
    from spacy.cli.train import train as spacy_train

    data_dir = data_dir or default_data_dir()
    started = time.time()
    work = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="kg-train-"))
    vectors_dir: Path | None = None
    if vectors:
        vectors_dir = (
            vectors
            if isinstance(vectors, Path)
            else train_vectors(data_dir, work / "vectors", seed=seed)
        )
    product = annotations is not None
    if product:
        tdmsci_mask = None
    if tdmsci and tdmsci_mask == "auto":
        # stage 1: SciERC + TDMSci with unlabelled tokens missing; its Method/OST/Generic/Material
        # predictions then mark what TDMSci is silent about, and everything else there becomes O.
        stage1 = work / "stage1"
        train(
            stage1,
            data_dir,
            config=config,
            work_dir=work / "stage1-work",
            overrides={**(overrides or {}), "training.max_steps": STAGE1_STEPS},
            tdmsci=True,
            tdmsci_keep=tdmsci_keep,
            scirex_sample=0.0,
            vectors=vectors_dir or False,
            tdmsci_mask=None,
            pretrain=False,
            seed=seed,
            **STAGE1_OPTIONS,
        )
        tdmsci_mask = stage1
    if pretrain is True:
        pretrain = pretrain_tok2vec(
            data_dir,
            work / "pretrain",
            config=config,
            vectors_dir=vectors_dir,
            overrides=overrides,
            seed=seed,
        )
    if product:
        paths = build_product_corpora(
            data_dir,
            work / "corpus",
            annotations=list(annotations or []),
            dev=list(dev_annotations or [ANNOTATIONS / "dev.jsonl"]),
            annotations_repeat=annotations_repeat,
            scierc_repeat=scierc_repeat,
            tdmsci=tdmsci,
            scirex_sample=scirex_sample,
            seed=seed,
        )
    else:
        paths = build_corpora(
            data_dir,
            work / "corpus",
            tdmsci=tdmsci,
            tdmsci_keep=tdmsci_keep,
            scirex_sample=scirex_sample,
            dataset_label=dataset_label,
            tdmsci_mask=Path(tdmsci_mask) if tdmsci_mask else None,
            scierc_repeat=scierc_repeat,
            seed=seed,
        )
    settings: dict[str, Any] = {
        "paths.train": str(paths["train"]),
        "paths.dev": str(paths["dev"]),
        "system.seed": seed,
    }
    settings.update(_vector_settings(vectors_dir))
    if pretrain:
        settings["paths.init_tok2vec"] = str(pretrain)
    settings.update(overrides or {})
    spacy_train(config, work / "model", overrides=settings, use_gpu=-1)
    best = work / "model" / "model-best"
    output = Path(output)
    if output.exists():
        shutil.rmtree(output)
    shutil.copytree(best, output)
    _trim(output)
    meta = json.loads((output / "meta.json").read_text())
    return {
        "output": str(output),
        "seconds": time.time() - started,
        "scores": meta.get("performance", {}),
    }


def crossval_tdmsci(
    data_dir: Path | None = None,
    *,
    folds: int = 3,
    only: list[int] | None = None,
    work_dir: Path | None = None,
    overrides: dict[str, Any] | None = None,
    seed: int = 0,
    **options: Any,
) -> dict[str, Any]:
    """k-fold cross-validation on TDMSci train: train without one fold, score TASK/DATASET/METRIC on it.

    Fold k holds out the sentences at positions k, k + folds, ... of a seeded shuffle (seed 0: the
    README's "held-out third" is fold 0 of 3). The word vectors and the pretrained tok2vec are made
    once for all folds (the pretraining text is abstracts only, no TDMSci sentence).
    only: run just these folds (the figure is then over those folds).
    RETURNS (dict): micro P/R/F over the held-out folds, per label, and SciERC dev F1 per fold.
    """
    import spacy

    from kg.gold import PRF, predict, read_conll, read_scierc, score_ner
    from kg.schema import SCIERC_LABELS

    data_dir = data_dir or default_data_dir()
    gold_path = data_dir / "tdmsci" / "train.conll"
    golds = list(read_conll(gold_path))
    order = list(range(len(golds)))
    random.Random(seed).shuffle(order)
    work = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="kg-cv-"))
    per_label: dict[str, PRF] = {}
    scierc_dev: dict[int, float] = {}
    if options.get("vectors", DEFAULTS["vectors"]) is True:
        options["vectors"] = train_vectors(data_dir, work / "vectors", seed=seed)
    if (
        options.get("pretrain", DEFAULTS["pretrain"]) is True
    ):  # abstracts only: no TDMSci text in it
        options["pretrain"] = pretrain_tok2vec(
            data_dir,
            work / "pretrain",
            vectors_dir=options["vectors"] or None,
            overrides=overrides,
            seed=seed,
        )
    for k in range(folds):
        if only is not None and k not in only:
            continue
        held = set(order[k::folds])
        model_dir = work / f"fold{k}"
        train(
            model_dir,
            data_dir,
            work_dir=work / f"work{k}",
            overrides=overrides,
            tdmsci_keep=set(order) - held,
            seed=seed,
            **options,
        )
        nlp = spacy.load(model_dir)
        test = [golds[i] for i in sorted(held)]
        predicted = predict(test, nlp, "conll")
        for gold, spans in zip(test, predicted):
            pred = {(gold.key, *t) for t in spans[0]}
            ref = {(gold.key, *t) for t in gold.ner[0]}
            for label in ("TASK", "DATASET", "METRIC"):
                per_label.setdefault(label, PRF()).score_set(
                    {t for t in pred if t[3] == label}, {t for t in ref if t[3] == label}
                )
        dev = list(read_scierc(data_dir / "scierc" / "dev.json"))
        scierc_dev[k] = score_ner(dev, predict(dev, nlp, "scierc"), SCIERC_LABELS)["f"]
        log.info(
            "fold %d: TDMSci %.3f (cumulative), SciERC dev %.3f",
            k,
            sum(per_label.values(), PRF()).fscore,
            scierc_dev[k],
        )
    micro = sum(per_label.values(), PRF())
    return {
        **micro.to_dict(),
        "per_type": {k: v.to_dict() for k, v in per_label.items()},
        "scierc_dev_f": scierc_dev,
    }


def finish_pipeline(
    output: Path,
    train_files: list[Path],
    dev_files: list[Path],
    data_dir: Path | None = None,
    *,
    role_precision: float = 0.9,
    relation_precision: float = 0.7,
) -> dict[str, Any]:
    """What a trained NER needs beside it (``output/kg.json``): the role model fitted on the pipeline's
    own mentions of ``train_files`` (threshold for ``role_precision`` on ``dev_files``) and the relation
    cut-offs for ``relation_precision`` on SciERC dev with its spans."""
    from extractors.pipeline import update_settings
    from extractors.relations_train import choose_operating_point

    roles = finish_roles(output, train_files, dev_files, min_precision=role_precision)
    relations = choose_operating_point(output, data_dir=data_dir, min_precision=relation_precision)
    update_settings(output, relations=relations)
    return {"roles": roles, "relations": relations}


def finish_roles(
    output: Path, train_files: list[Path], dev_files: list[Path], *, min_precision: float = 0.9
) -> dict[str, Any]:
    """Fit the role model of the pipeline in ``output`` on its own mentions of ``train_files``
    (threshold for ``min_precision`` on ``dev_files``), write ``output/roles.json`` and record it in
    ``output/kg.json``: ``kg train roles``, and the role step of the shipped recipe."""
    from extractors.pipeline import load_pipeline, update_settings
    from extractors.roles_train import train_roles

    roles = train_roles(
        load_pipeline(output),
        train_files,
        dev_files,
        output=output / "roles.json",
        min_precision=min_precision,
    )
    roles.pop("output", None)  # a path of this machine: not for the shipped settings
    update_settings(output, roles="roles.json", roles_dev=roles)
    return roles


def product_steps(steps: int) -> dict[str, Any]:
    """Config overrides for ``steps`` training steps and no early stop (patience 0): the learning rate
    is constant, so the run is a prefix of any longer one with the same seed, and its best checkpoint
    is the best of a longer run's first ``steps`` steps."""
    return {"training.max_steps": steps, "training.patience": 0}


def train_recipe(
    output: Path = MODEL_DIR,
    data_dir: Path | None = None,
    work_dir: Path | None = None,
    *,
    vectors: Path | None = None,
    pretrain: bool | Path = False,
    crossval: int = 0,
    folds: list[int] | None = None,
    first_round: bool = False,
    scierc_recipe: bool = False,
    annotations: list[Path] | None = None,
    dev: list[Path] | None = None,
    seed: int = DEFAULTS["seed"],
    steps: int | None = None,
) -> dict[str, Any]:
    """``kg train``: rebuild the shipped pipeline, or (``crossval``) k-fold the SciERC recipe on TDMSci.

    The shipped recipe (:data:`PRODUCT`) learns the four product labels from
    ``data/annotations/train.jsonl`` plus ``annotations`` (a user's own files in the same format),
    chooses checkpoints on ``dev`` (default ``data/annotations/dev.jsonl``), then fits the role
    model and the relation cut-offs (:func:`finish_pipeline`).
    vectors: a vectors pipeline from an earlier run's work folder (``WORK/vectors/pipeline``).
    pretrain: pretrain the tok2vec first (True), or start from an earlier run's weights
        (``WORK/pretrain/model-last.bin``); no recipe does by default (it did not help).
    scierc_recipe / first_round: the older recipes (SciERC's six labels plus DATASET, no annotations).
    steps: training steps of the shipped recipe's final model (default: the recipe's ``max_steps``).
    RETURNS (dict): what ``train`` or ``crossval_tdmsci`` returns.
    """
    if crossval or scierc_recipe or first_round:
        recipe = FIRST_ROUND if first_round else DEFAULTS
        options: dict[str, Any] = {k: recipe[k] for k in ("dataset_label", "scierc_repeat")}
        options["vectors"] = vectors or recipe["vectors"]
        options["pretrain"] = pretrain or recipe["pretrain"]
        if crossval:
            result = crossval_tdmsci(
                data_dir, folds=crossval, only=folds, work_dir=work_dir, seed=seed, **options
            )
        else:
            result = train(output, data_dir, work_dir=work_dir, seed=seed, **options)
    else:
        from kg.annotations import load

        train_files = [ANNOTATIONS / "train.jsonl", *(annotations or [])]
        dev_files = list(dev or [ANNOTATIONS / "dev.jsonl"])
        load(train_files + dev_files)  # a bad line is reported now, not after an hour of training
        result = train(
            output,
            data_dir,
            work_dir=work_dir,
            seed=seed,
            annotations=train_files,
            dev_annotations=dev_files,
            annotations_repeat=PRODUCT["annotations_repeat"],
            scierc_repeat=PRODUCT["scierc_repeat"],
            tdmsci=PRODUCT["tdmsci"],
            scirex_sample=PRODUCT["scirex_sample"],
            vectors=vectors or PRODUCT["vectors"],
            pretrain=pretrain or PRODUCT["pretrain"],
            overrides=product_steps(steps or PRODUCT["max_steps"]),
        )
        result.update(finish_pipeline(Path(output), train_files, dev_files, data_dir))
    return result
