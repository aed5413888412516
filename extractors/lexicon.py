"""Word lists the rules lean on: head nouns that give a phrase its label, and generic words.

One place for these so the extractor and the resolver agree on what is "generic".
"""

from __future__ import annotations

from functools import lru_cache

__all__ = [
    "HEAD_LABELS",
    "VERBISH",
    "NOUN_ING",
    "is_verbish",
    "GENERIC_PHRASES",
    "GENERIC_MODIFIERS",
    "BOUNDARY_WORDS",
    "label_for_head",
    "is_generic",
    "generic_key",
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
        "autoencoder autoencoders autoencoding classifier classifiers retriever search heuristic paradigm layer layers"
    ),
    "METRIC": (
        "accuracy precision recall f1 score scores error errors rate perplexity bleu rouge auc overlap "
        "fid psnr ssim iou map latency throughput speedup regret"
    ),
}.items():
    for _word in _words.split():
        HEAD_LABELS[_word] = _label

_GENERIC_WORDS = """
method methods model models approach approaches framework frameworks algorithm algorithms technique
techniques system systems architecture architectures network networks module modules mechanism
mechanisms strategy strategies pipeline pipelines scheme schemes task tasks problem problems dataset
datasets data benchmark benchmarks corpus corpora metric metrics score scores experiment experiments
result results performance baseline baselines learning training inference evaluation analysis
error errors loss objective policy policies agent agents layer layers generation
detection prediction estimation optimization search reasoning understanding planning alignment
compression simulation discovery verification editing tracking retrieval translation recognition
segmentation synthesis reconstruction navigation sota state-of-the-art work works paper study
robustness scalability complexity efficiency effectiveness generalization cost costs flexibility
stability interpretability fidelity quality diversity speed overhead
encoder decoder encoders decoders sampling ablation ablations adaptation diffusion capability
capabilities computation post-processing postprocessing preprocessing pre-processing
process processes procedure procedures paradigm paradigms solution solutions formulation formulations
family families
"""
_GENERIC_MULTI = """
baseline method | baseline methods | prior work | state of the art | state-of-the-art methods
state-of-the-art models | state-of-the-art approaches | learning method | learning methods
learning algorithm | learning algorithms | learning framework | learning model | learning models
deep learning model | deep learning models | machine learning model | machine learning models
neural network | neural networks | deep neural network | deep neural networks | deep networks
language model | language models | downstream task | downstream tasks | real-world tasks
real-world datasets | real-world benchmarks | various tasks | diverse tasks | extensive experiments
comprehensive experiments | empirical results | experimental results | theoretical analysis
training data | test data | training dataset | test set | training set | validation set
evaluation metric | evaluation metrics | benchmark dataset | benchmark datasets | public datasets
several benchmarks | multiple benchmarks | standard benchmarks | diverse benchmarks
challenging benchmarks | popular benchmarks | synthetic datasets | synthetic data | large models
generative models | generative model | baseline models | existing models | existing methods
prior methods | previous methods | existing approaches | current methods | training method
optimization method | optimization methods | optimization algorithm | optimization algorithms
computational efficiency | computational complexity | computational cost | computational costs
computational overhead | memory footprint | memory cost
generalization ability | generalization performance | convergence performance
pretrained model | pretrained models | pre-trained model | pre-trained models | ablation study
ablation studies | data collection | theoretical foundation | theoretical foundations | loss function
loss functions | objective function | generative framework | generative frameworks | generative approach
generative approaches | generative method | generative methods | agentic framework | agentic frameworks
machine learning | deep learning | artificial intelligence | natural language processing | ai | nlp
"""

#: Tuned on the in-domain dev split (bench/generic_words.py, docs/experiments.md): "accuracy",
#: "classification", "sample complexity" and "time complexity" name metrics and tasks there and are
#: not listed; the broad fields ("machine learning", "deep learning", "AI", "NLP") are.
_GENERIC_SINGLE = frozenset(_GENERIC_WORDS.split())
#: Phrases that name no particular thing; they never become entities (compared case-folded).
GENERIC_PHRASES: frozenset[str] = frozenset(_GENERIC_WORDS.split()) | frozenset(
    p.strip() for p in _GENERIC_MULTI.replace("\n", "|").split("|") if p.strip()
)

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
    results experiments experimental extensive significant competitive minimal highly substantially
    high low perfect comparable non-trivial good poor superior remarkable impressive stronger notable
    substantial considerable great greater promising reasonable satisfactory stringent so-called face
    strong weak improved better worse faster slower lightweight overall theoretical empirical accurate
    high-quality low-quality long-context real-world open-source large small diverse challenging
    despite de facto appropriate tailored intuitive suboptimal principled smaller larger modern
    standard naive vanilla classical classic plain original corresponding respective ideal
    """.split()
)


#: -ing words that are nouns in this domain ("reinforcement learning"); other -ing words end a phrase.
NOUN_ING: frozenset[str] = frozenset(
    """
    learning prompting sampling training pretraining pre-training modeling modelling reasoning tracking
    editing parsing tagging decoding encoding embedding pruning tuning fine-tuning finetuning scaling
    splatting answering captioning forecasting understanding planning clustering ranking matching
    hashing labeling labelling boosting routing pooling masking denoising inpainting thinking computing
    processing mining programming rendering unlearning watermarking smoothing following filtering
    streaming spelling coding engineering imaging sensing driving painting reading writing meaning
    tokenizing morphing
    """.split()
)
#: Verbs that abstracts use right before a noun phrase; they are never part of a name.
VERBISH: frozenset[str] = frozenset(
    """
    identify stabilize accelerate restrict combine achieve reduce increase enhance leverage exploit
    outperform require mitigate address tackle solve exhibit yield obtain attain provide generate
    capture learn train evaluate perform employ adopt apply integrate incorporate optimize minimize
    maximize preserve maintain recommend enable allow make take give show find reveal suggest
    demonstrate propose introduce present develop design build study analyze analyse investigate
    explore examine consider compare outperform surpass exceed match reach establish ensure support
    facilitate accelerate boost improve degrade hinder limit prevent avoid remain become seem tend
    need fail struggle rely depend focus aim seek offer deliver produce create construct extend
    generalize transfer adapt scale """.split()
)
#: Past participles that are adjectives in this domain ("masked autoencoder"); other -ed words end a phrase.
ADJECTIVE_ED: frozenset[str] = frozenset(
    """
    supervised self-supervised semi-supervised unsupervised weakly-supervised masked pretrained pre-trained
    fine-tuned finetuned federated distributed structured constrained conditioned guided augmented based
    learned shared weighted gated grounded embedded tied centralized decentralized generalized randomized
    normalized regularized quantized compressed stacked nested labeled labelled unlabeled unlabelled
    annotated synthesized simulated automated connected mixed layered directed undirected hierarchical
    specialized personalized unified
    """.split()
)


#: Modifiers that leave a generic head generic ("training-free framework", "closed-form solution",
#: "base model"). Only :func:`is_generic` reads them: unlike BOUNDARY_WORDS they may start a name
#: ("natural language processing", "generative adversarial networks").
GENERIC_MODIFIERS: frozenset[str] = frozenset(
    """
    natural flexible useful practical powerful versatile scalable holistic systematic comprehensive
    rigorous straightforward closed-form end-to-end two-stage multi-stage single-stage plug-and-play
    training-free tuning-free model-agnostic hybrid diffusion-based learning-based
    llm-based data-driven base teacher student external internal underlying separate additional
    state-of-the-art sota
    """.split()
)


#: Generic words that name a model family before a model head ("diffusion models", "large reasoning
#: models (LRMs)"): the guidelines make named families METHOD. Tuned on dev (bench/generic_words.py):
#: "language", "generative", "policy" or "retrieval" models stay generic.
FAMILY_WORDS: frozenset[str] = frozenset({"diffusion", "reasoning"})
_MODEL_HEADS = frozenset({"model", "models", "network", "networks"})

#: A phrase made only of these words names nothing ("simple end-to-end framework").
_NAMES_NOTHING: frozenset[str] = BOUNDARY_WORDS | _GENERIC_SINGLE | GENERIC_MODIFIERS


def is_verbish(word: str) -> bool:
    """True for words that are most likely verbs or adverbs, so they end a noun phrase."""
    w = word.lower()
    if w in VERBISH or w.rstrip("s") in VERBISH or w.endswith("ly"):
        return True
    if w.endswith("ing") and w not in NOUN_ING and not w.endswith("-ing"):
        return True
    if w.endswith("ed") and len(w) > 4 and "-" not in w and w not in ADJECTIVE_ED:
        return True
    return w.endswith(("ize", "izes", "ise", "ises", "ify", "ifies")) and len(w) > 5


def label_for_head(word: str) -> str | None:
    """The label a noun phrase ending in ``word`` names, or None."""
    return HEAD_LABELS.get(word.lower())


def generic_key(phrase: str) -> str:
    """The form :data:`GENERIC_PHRASES` is compared in: case-folded, white space collapsed."""
    return " ".join(phrase.casefold().replace("-", " - ").split()).replace(" - ", "-")


@lru_cache(maxsize=200_000)  # a corpus repeats its phrases: resolution asks once per mention
def is_generic(phrase: str) -> bool:
    """True for phrases that name no particular thing ("our method", "this task", "experiments")."""
    text = generic_key(phrase)
    if text in GENERIC_PHRASES or not any(ch.isalpha() for ch in text):  # "39%" names nothing
        return True
    words = text.split()
    if not words:
        return True
    if words[0] in {
        "our",
        "this",
        "the",
        "these",
        "their",
        "its",
        "a",
        "an",
        "proposed",
        "existing",
        "such",
    } or (len(words) > 1 and words[0] in GENERIC_MODIFIERS):  # "powerful generative frameworks"
        return is_generic(" ".join(words[1:]))
    if len(words) > 1 and words[-1] in _MODEL_HEADS and not FAMILY_WORDS.isdisjoint(words[:-1]):
        return False
    return all(w in _NAMES_NOTHING for w in words)
