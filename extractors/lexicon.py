"""Word lists the rules lean on: head nouns that give a phrase its label, and generic words.

One place for these so the extractor and the resolver agree on what is "generic".
"""

from __future__ import annotations

__all__ = [
    "HEAD_LABELS",
    "GENERIC_PHRASES",
    "BOUNDARY_WORDS",
    "label_for_head",
    "is_generic",
]

#: Last word of a noun phrase -> the label that phrase names.
HEAD_LABELS: dict[str, str] = {}
for _label, _words in {
    "DATASET": "dataset datasets benchmark benchmarks corpus corpora testbed suite treebank",
    "TASK": (
        "detection segmentation classification recognition generation translation answering tracking "
        "retrieval forecasting prediction estimation summarization captioning parsing tagging editing "
        "synthesis reconstruction following understanding navigation planning completion localization "
        "manipulation verification discovery unlearning alignment simulation diversification "
        "compression induction proving restoration inpainting"
    ),
    "METHOD": (
        "model models network networks method methods algorithm algorithms framework frameworks approach "
        "approaches architecture architectures transformer transformers attention optimizer optimizers "
        "mechanism module modules learning prompting sampling distillation quantization fine-tuning "
        "finetuning tuning pruning decoding encoder encoders decoder decoders regularization "
        "strategy technique techniques pipeline agent agents tokenizer tokenizers embedding embeddings "
        "kernel kernels scheme estimator estimators loss objective policy policies optimization "
        "autoencoder autoencoders classifier classifiers retriever search heuristic paradigm layer layers"
    ),
    "METRIC": (
        "accuracy precision recall f1 score scores error errors rate perplexity bleu rouge auc overlap "
        "fid psnr ssim iou map latency throughput speedup regret"
    ),
}.items():
    for _word in _words.split():
        HEAD_LABELS[_word] = _label

#: Phrases that name no particular thing; they never become entities (compared case-folded).
GENERIC_PHRASES: frozenset[str] = frozenset(
    """
    method methods model models approach approaches framework frameworks algorithm algorithms technique
    techniques system systems architecture architectures network networks module modules mechanism
    strategy strategies pipeline scheme task tasks problem problems dataset datasets data benchmark
    benchmarks corpus corpora metric metrics score scores experiment experiments result results
    performance baseline baselines baseline method baseline methods our method our approach our model
    our framework this method this approach this task this model the method the model the task
    proposed method proposed approach proposed framework proposed model new method novel method
    novel approach novel framework existing methods prior methods previous methods prior work
    state of the art state-of-the-art state-of-the-art methods sota learning training inference
    evaluation analysis accuracy error loss objective policy policies agent agents layer layers
    learning method learning methods learning algorithm learning algorithms learning framework
    generation classification detection prediction estimation optimization search reasoning
    understanding planning alignment compression simulation discovery verification editing
    tracking retrieval translation recognition segmentation synthesis reconstruction navigation
    deep learning model deep learning models machine learning model machine learning models
    neural network neural networks deep neural network deep neural networks
    language model language models the model's models' tasks' existing approaches
    downstream tasks downstream task real-world tasks real-world datasets various tasks
    extensive experiments comprehensive experiments empirical results theoretical analysis
    training data test data training dataset test set training set validation set
    evaluation metrics evaluation metric benchmark datasets benchmark dataset public datasets
    several benchmarks multiple benchmarks standard benchmarks diverse benchmarks
    """.split("\n")
) - {""}

#: Words that end a noun phrase on the left: they are never part of an entity name.
BOUNDARY_WORDS: frozenset[str] = frozenset(
    """
    a an the this that these those our their its his her my your we they it them us
    novel new proposed existing previous prior current standard simple efficient effective robust strong
    recent various different several multiple many most more less some any each every all both other
    such same key main first second third final further better best higher lower large-scale
    unified general generic typical common conventional traditional popular widely well-known
    and or but nor of in on at by for with without from to into onto via as than then also only
    is are was were be been being has have had do does did can could may might will would should must
    which who whom whose what when where why how while whereas although though because since if
    not no nor yet so thus hence therefore however moreover furthermore additionally specifically
    using use uses used based achieve achieves achieved improve improves improved show shows shown
    demonstrate demonstrates propose proposes introduce introduces present presents enable enables
    across over under between among within through during after before upon against toward towards
    """.split()
)


def label_for_head(word: str) -> str | None:
    """The label a noun phrase ending in ``word`` names, or None."""
    return HEAD_LABELS.get(word.lower())


def is_generic(phrase: str) -> bool:
    """True for phrases that name no particular thing ("our method", "this task", "experiments")."""
    text = " ".join(phrase.casefold().replace("-", " - ").split()).replace(" - ", "-")
    if text in GENERIC_PHRASES:
        return True
    words = text.split()
    if not words:
        return True
    if words[0] in {"our", "this", "the", "these", "their", "its", "a", "an", "proposed", "existing", "such"}:
        return is_generic(" ".join(words[1:]))
    return all(w in BOUNDARY_WORDS or w in HEAD_LABELS for w in words)
