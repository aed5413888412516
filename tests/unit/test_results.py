"""Result records: what kg_results reads from a sentence, what it refuses to guess, the Result
nodes in the graph and its files, the leaderboard, ``kg results`` and the page's paper panel."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from graph_exports.files import read_graphml, write_graphml
from graph_exports.html import _split_results, page_nodes
from graph_exports.page_data import merge_details, pack, split_details, unpack
from graph_exports.view import select
from kg.build import build_from_papers
from kg.graph import KnowledgeGraph
from kg.model import Paper
from kg.results import leaderboard, lower_is_better, paper_results

TRACKER = (
    "We propose FARTrack, a fast visual tracker. FARTrack achieves an AO of 70.6% on GOT-10k in "
    "real-time. It improves accuracy by 4.3 points over GPTQ on ImageNet."
)


def results_of(nlp, text: str) -> list[dict]:
    return nlp(text).user_data["kg_results"]


def test_a_score_with_metric_dataset_and_the_papers_method(nlp):
    (r,) = [r for r in results_of(nlp, TRACKER) if r["kind"] == "score"]
    assert (r["value"], r["unit"], r["metric"], r["dataset"], r["method"], r["own"]) == (
        70.6,
        "%",
        "AO",
        "GOT-10k",
        "FARTrack",
        True,
    )
    assert TRACKER[r["start"] : r["end"]] == "70.6%" and r["sentence"].startswith(
        "FARTrack achieves"
    )


def test_an_improvement_over_a_named_baseline(nlp):
    (r,) = [r for r in results_of(nlp, TRACKER) if r["kind"] == "improvement"]
    assert (r["value"], r["unit"], r["metric"], r["baseline"], r["dataset"]) == (
        4.3,
        "points",
        "accuracy",
        "GPTQ",
        "ImageNet",
    )


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("Our method runs 2.1x faster than FlashAttention.", ("speedup", 2.1, "x", "speed")),
        ("Our approach reduces memory by 40% on long inputs.", ("reduction", 40.0, "%", "memory")),
        (
            "Experiments show our model reaches 35.2 BLEU on the WMT corpus.",
            ("score", 35.2, "", "BLEU"),
        ),
        (
            "We cut the word error rate by up to 12% relative.",
            ("reduction", 12.0, "%", "word error rate"),
        ),
    ],
)
def test_kinds_units_and_metrics(nlp, sentence, expected):
    (r,) = results_of(nlp, sentence)
    assert (r["kind"], r["value"], r["unit"], r["metric"]) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        # which value goes with which data set is not said
        "Our model achieves 70.1% and 80.2% accuracy on CIFAR-10 and CIFAR-100, respectively.",
        # numbers inside names, sizes and counts are not results
        "We fine-tune GPT-3.5 and Llama-2 7B on 12 datasets with 4.5 hours of compute.",
        # a value without a metric beside it: of what?
        "Our method outperforms the baseline by 4.3%.",
        # the lower end of a range
        "Our method achieves a 3% to 4% accuracy gain.",
        # a difference without a direction
        "Our method matches the teacher with a 0.4% accuracy difference.",
    ],
)
def test_what_is_not_sure_is_not_written(nlp, sentence):
    values = [r["text"] for r in results_of(nlp, sentence)]
    assert values in ([], ["4%"]) if "3% to 4%" in sentence else values == []


def test_someone_elses_result_is_theirs(nlp):
    text = (
        "We introduce HardBench, a benchmark of puzzles. "
        "GPT-4o achieves only 31.5% accuracy on HardBench."
    )
    (r,) = results_of(nlp, text)
    assert r["method"] == "GPT-4o" and r["own"] is False and r["value"] == 31.5


@pytest.mark.parametrize(
    "sentence, kept",
    [
        # a baseline's number beside the paper's: "vs.", "versus ... for X"
        (
            "We propose RetroX. Our model retrieves rotated variants with 77% Recall@10 "
            "(vs. 9.8% Recall@10 for a unimodal baseline).",
            ["77%"],
        ),
        (
            "We propose ButterflyQuant. ButterflyQuant achieves 15.4 perplexity versus 37.3 "
            "perplexity for QuIP.",
            ["15.4"],
        ),
        # numbers in parentheses after another method's name are that method's
        (
            "We propose ShieldX. Experiments show that ShieldX outperforms SecAlign (56.4% "
            "utility and 43.6% ASR).",
            [],
        ),
        # a bound is not a result: "less than 60% accuracy"
        (
            "Our evaluations reveal a deficiency: even frontier LLMs achieve less than 60% "
            "accuracy in predicting action outcomes and less than 60% recall in lagging "
            "high-risk actions.",
            [],
        ),
        # "outperforms X ... up to 4% pass@1" without "by": a margin or a score? unsure
        (
            "We propose GSPO-X. Our method outperforms GRPO on math benchmarks with up to "
            "4% pass@1.",
            [],
        ),
    ],
)
def test_other_peoples_numbers_bounds_and_unsure_comparisons_are_not_written(nlp, sentence, kept):
    assert [r["text"] for r in results_of(nlp, sentence)] == kept


def test_the_noun_after_the_value_names_its_kind(nlp):
    text = (
        "We propose DeLAMA. Experiments show DeLAMA achieves a 98.80% reduction in MSE and a "
        "188.87% improvement in classification accuracy."
    )
    kinds = {r["text"]: r["kind"] for r in results_of(nlp, text)}
    assert kinds["188.87%"] == "improvement"
    speed = results_of(
        nlp, "We propose FastTok. FastTok achieves a speedup of up to 127% over existing toolkits."
    )
    assert [(r["kind"], r["metric"]) for r in speed] == [("speedup", "speed")]


def test_what_a_value_is_compared_with_is_not_its_method(nlp):
    text = "We propose LaVi, a token pruner. Compared to LLaVA-OV-7B, it reduces FLOPs by 94.0%."
    (r,) = results_of(nlp, text)
    assert (r["method"], r["own"]) == ("LaVi", True)


def test_baselines_are_whole_and_belong_to_their_own_value(nlp):
    (r,) = results_of(
        nlp,
        "Experiments show that our approach outperforms the state-of-the-art, achieving over "
        "20% improvement in accuracy.",
    )
    assert r["baseline"] == "the state-of-the-art"  # not cut at a hyphen: "the state-of"
    text = (
        "We propose GUI-KV. On AgentNetBench, it reduces decoding FLOPs by 38.9% while "
        "increasing step accuracy by 4.1% over the full-cache baseline."
    )
    flops = [r for r in results_of(nlp, text) if r["text"] == "38.9%"]
    assert [r["baseline"] for r in flops] == [None]  # "over ..." is the 4.1%'s
    text = (
        "We propose CoMix. Our method outperforms MAMET and VPKE by +4.1 and +7.3 rSum on "
        "MSCOCO, surpasses CoCoA by +5.09% accuracy in generalization."
    )
    baselines = {r["text"]: r["baseline"] for r in results_of(nlp, text)}
    assert baselines.get("+7.3") is None and baselines["+5.09%"] == "CoCoA"


def test_unsure_tasks_data_sets_and_names_are_left_empty(nlp):
    text = (
        "We propose SpaRTran. SpaRTran cuts positioning error by up to 28% and increases "
        "top-1 accuracy for beamforming by 26%."
    )
    (r,) = [r for r in results_of(nlp, text) if r["text"] == "28%"]
    assert r["task"] is None  # "for beamforming" is the next clause's
    text = "We propose QuantX. Experiments show QuantX reduces perplexity by 12% on LLaMA2-13B."
    (r,) = results_of(nlp, text)
    assert (r["dataset"], r["value"]) == (None, 12.0)  # a model, not a data set
    text = "We propose SemiHVision. Experiments show \\textbf{SemiHVision} achieves 80.2% accuracy."
    (r,) = results_of(nlp, text)
    assert (r["method"], r["own"], r["value"]) == ("SemiHVision", True, 80.2)  # no "\\textbf{"


@pytest.fixture(scope="module")
def graph(nlp) -> KnowledgeGraph:
    papers = [
        Paper(id="a1", abstract=TRACKER, title="FARTrack", year=2024),
        Paper(
            id="a2",
            abstract="We present SlowTrack for tracking. SlowTrack reaches an AO of 65.2% on "
            "GOT-10k. It lowers the FID to 3.1 on ImageNet.",
            title="SlowTrack",
            year=2023,
        ),
        Paper(
            id="a3", abstract="We present Gen. Gen achieves a FID of 2.4 on ImageNet.", title="Gen"
        ),
    ]
    return build_from_papers(papers, nlp).graph


def test_result_nodes_link_paper_dataset_metric_and_method(graph):
    G = graph.nx
    rid = next(n for n, d in G.nodes(data=True) if d["label"] == "Result" and d["value"] == 70.6)
    assert rid == "result:a1:1" and G.nodes[rid]["name"] == "70.6% AO on GOT-10k"
    assert ("paper:a1", rid, "REPORTS_RESULT") in G.edges(keys=True)
    links = {k: v for _, v, k in G.out_edges(rid, keys=True)}
    assert links["ON"] == "dataset:got 10k" and links["OF"] == "method:fartrack"
    evidence = G.edges["paper:a1", rid, "REPORTS_RESULT"]["evidence"][0]
    assert G.nodes["paper:a1"]["abstract"][evidence["start"] : evidence["end"]] == "70.6%"
    assert graph.stats()["results"] == sum(
        1 for _, d in G.nodes(data=True) if d["label"] == "Result"
    )


def test_leaderboard_ranks_by_value_and_knows_lower_is_better(graph):
    ao = leaderboard(graph.nx, dataset="GOT-10k", metric="AO")
    assert [(r.value, r.method) for r in ao] == [(70.6, "FARTrack"), (65.2, "SlowTrack")]
    fid = leaderboard(graph.nx, metric="FID")
    assert [r.value for r in fid] == sorted(r.value for r in fid) and fid[0].value == 2.4
    assert (
        lower_is_better("FID")
        and lower_is_better("word error rate")
        and not lower_is_better("accuracy")
    )
    assert [r.value for r in paper_results(graph.nx, "paper:a1")] == [70.6, 4.3]


def test_results_survive_graphml_and_json(graph, tmp_path):
    back = read_graphml(write_graphml(graph, tmp_path / "g.graphml"))
    assert back.nodes["result:a1:1"]["value"] == 70.6 and back.nodes["result:a1:1"]["own"] is True
    graph.save(tmp_path / "g.json")
    again = KnowledgeGraph.load(tmp_path / "g.json")
    assert [r.to_dict() for r in leaderboard(again.nx)] == [
        r.to_dict() for r in leaderboard(graph.nx)
    ]


def test_the_page_shows_results_in_the_paper_panel_not_as_nodes(graph):
    g, rows = _split_results(graph.nx)
    assert not any(d["label"] == "Result" for _, d in g.nodes(data=True))
    sel = select(g)
    nodes = page_nodes(g, sel, {}, [set(sel.nodes)], results=rows)
    vis, store = pack(nodes, [])
    core, details = split_details(store)
    back, _ = unpack(vis, merge_details(core, details))
    paper = next(n for n in back if n["id"] == "paper:a1")
    vs, ve, ss, se, name, method, baseline = paper["results"][0]
    assert paper["abstract"][vs:ve] == "70.6%" and paper["abstract"][ss:se].startswith(
        "FARTrack achieves"
    )
    assert (name, method) == ("70.6% AO on GOT-10k", "FARTrack")


def kg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kg.cli", *args], capture_output=True, text=True, timeout=600
    )


def test_kg_results_prints_the_leaderboard_and_refuses_a_bad_kind(graph, tmp_path):
    path = graph.save(tmp_path / "graph.json")
    done = kg("results", str(path), "--dataset", "GOT-10k", "--json")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["value"], r["paper_name"]) for r in rows] == [
        (70.6, "FARTrack"),
        (65.2, "SlowTrack"),
    ]
    table = kg("results", str(path), "--metric", "AO")
    assert "70.6%" in table.stdout and "FARTrack achieves" in table.stdout
    bad = kg("results", str(path), "--kind", "best")
    assert (
        bad.returncode == 1
        and "--kind 'best' is not one of" in bad.stderr
        and "Traceback" not in bad.stderr
    )


def _by_text(nlp, text: str) -> dict[str, dict]:
    return {r["text"]: r for r in results_of(nlp, text)}


@pytest.mark.parametrize(
    "sentence, kinds",
    [
        # "speed-up" is three tokens; an adjective before the change noun
        ("We propose VeloNet. VeloNet achieves a 28% speed-up on GSM8K.", {"28%": "speedup"}),
        (
            "We propose VeloNet. VeloNet achieves a 5.4% absolute improvement in accuracy and "
            ">10% relative improvements in recall.",
            {"5.4%": "improvement", "10%": "improvement"},
        ),
        # "a higher X of N" is the level reached, not a margin
        ("We propose VeloNet. VeloNet achieves a higher win rate of 60.8%.", {"60.8%": "score"}),
        # the comparison's verb is far from "by"; the later values share it
        (
            "We propose VeloNet. Our method outperforms the strongest baseline by 3% in "
            "accuracy, 2.9% in F1 score and 4.1% in recall.",
            {"3%": "improvement", "2.9%": "improvement", "4.1%": "improvement"},
        ),
    ],
)
def test_the_kind_of_a_comparison(nlp, sentence, kinds):
    assert {t: r["kind"] for t, r in _by_text(nlp, sentence).items()} == kinds


@pytest.mark.parametrize(
    "sentence",
    [
        "We propose VeloNet. VeloNet achieves 94.2% ± 1.8% top-1 accuracy.",  # a spread
        "We propose VeloNet. Our method finds designs within 1% relative error of the target.",
        "We propose VeloNet. VeloNet achieves a higher win rate, compared to GPT-5's 37.7%.",
        "We propose VeloNet. While all methods achieve near 100% accuracy, VeloNet is faster.",
        "We propose VeloNet. Models achieve F1 scores of 0.9 when using full commits.",
        "We propose VeloNet. VeloNet outperforms strong baselines including GPT-4o (18.6% "
        "accuracy).",
        "We propose VeloNet. VeloNet beats Open Deep Research by smolagents(20.3% accuracy and "
        "25.1% recall).",
        # an error-like metric that rises is a loss, not a gain
        "We propose VeloNet. It yields a perplexity increase of 0.9.",
        # a setting and a spread the NER may tag as metrics
        "We propose VeloNet. VeloNet achieves gains of +4.1% out-of-domain.",
        "We propose VeloNet. Raters agree closely (average inter-rater std = 0.12).",
    ],
)
def test_spreads_bounds_others_and_losses_are_not_written(nlp, sentence):
    assert results_of(nlp, sentence) == []


def test_a_metric_right_after_one_value_is_not_the_next_ones(nlp):
    found = _by_text(nlp, "We propose VeloNet. VeloNet reaches 0.84 rFID, 82.2% on ImageNet.")
    assert list(found) == ["0.84"] and found["0.84"]["metric"] == "rFID"


def test_a_value_is_not_tied_to_one_data_set_of_a_list(nlp):
    (r,) = results_of(
        nlp,
        "We propose VeloNet. Experiments on MATH500, GSM8K, and AIME show that VeloNet "
        "improves accuracy by 3.6%.",
    )
    assert (r["value"], r["dataset"]) == (3.6, None)
    found = _by_text(
        nlp,
        "We propose VeloNet. VeloNet achieves 99.05% and 99.52% accuracy on ModelNet40 and "
        "ModelNet10.",
    )
    assert all(r["dataset"] is None for r in found.values())


@pytest.mark.parametrize(
    "sentence, method, own",
    [
        # a host is not the subject; the paper's own method named as a host is still its own
        (
            "We propose VeloNet. Integrated into FlashInfer, VeloNet achieves a 2.1x speedup.",
            "VeloNet",
            True,
        ),
        (
            "We propose MED, an early-exit decoder. Combined with MED, this leads to a 69% "
            "speed-up on GSM8K.",
            "MED",
            True,
        ),
        # "can improve": a modal before the verb still makes the name the subject
        (
            "We propose VeloNet. Empirically, GBV can improve block efficiency by over 30%.",
            "GBV",
            False,
        ),
        # a description is not a name: the paper's own, nameless
        (
            "We propose a contrastive routing module for mixture-of-experts models. Experiments "
            "show the contrastive routing module achieves 80.1% accuracy on MMLU.",
            None,
            True,
        ),
    ],
)
def test_whose_method_a_value_is(nlp, sentence, method, own):
    (r,) = results_of(nlp, sentence)
    assert (r["method"], r["own"]) == (method, own)


def test_the_title_names_the_papers_method(nlp):
    from extractors import extract

    abstract = (
        "We present a data selection method built on two metrics, Delta of Norm (DON) and Norm "
        "of Delta (NOD). DONOD keeps the useful examples. By filtering out 70% of the data, we "
        "improve target-domain accuracy by 14.90%."
    )
    papers = [
        Paper(id="t", abstract=abstract, title="DONOD: Efficient Instruction Tuning"),
        Paper(id="u", abstract=abstract, title="Efficient Instruction Tuning"),
    ]
    titled, untitled = (item.results for item in extract(nlp, papers))
    assert [(r.method, r.own) for r in titled] == [("DONOD", True)]
    assert [r.method for r in untitled] != ["DON"]  # never the component's acronym


def test_baselines_keep_their_lead_words_and_heads(nlp):
    found = _by_text(
        nlp,
        "We propose VeloNet. VeloNet attains up to 12% higher accuracy than standard SFT and 3% "
        "higher recall than naive reward-agnostic test-time search baselines.",
    )
    assert found["12%"]["baseline"] == "standard SFT" and found["3%"]["baseline"] is None
    (r,) = results_of(
        nlp, "We propose VeloNet. VeloNet improves accuracy by 4% over LSTM baselines."
    )
    assert r["baseline"] == "LSTM baselines"


@pytest.mark.parametrize(
    "sentence, kept",
    [
        # a condition the value is reached under is not a result
        (
            "We propose AuditX. Our auditing agent achieves a 56.2% detection rate at a 1% "
            "false positive rate.",
            ["56.2%"],
        ),
        ("We propose HARA. HARA has negligible impact (e.g., <0.1% accuracy change).", []),
        ("We propose KVPrune. KVPrune keeps strong performance even with 50% pruning.", []),
        # a model's name tagged as a metric
        (
            "We propose NoisEasier. NoisEasier achieves win rates exceeding CogVideoX-2B by 18.8%.",
            [],
        ),
    ],
)
def test_conditions_bounds_and_names_are_not_results(nlp, sentence, kept):
    assert [r["text"] for r in results_of(nlp, sentence)] == kept


@pytest.mark.parametrize(
    "sentence, method, own",
    [
        # the name right before the verb is the subject, not the benchmark the paper proposes
        (
            "We propose MINED, a benchmark. Evaluating 15 LMMs on MINED shows that "
            "Gemini-2.5-Pro achieves the highest average accuracy of 63.07.",
            "Gemini-2.5-Pro",
            False,
        ),
        # a name in parentheses or after "of" is not the subject
        (
            "We propose TRAAC. TRAAC (Qwen3-4B) achieves an absolute accuracy gain of 8.4%.",
            "TRAAC",
            True,
        ),
        (
            "We propose CoRA. Experiments show that CoRA of TSFMs surpasses forecasters, "
            "achieving 31.1% MSE reduction.",
            "CoRA",
            True,
        ),
    ],
)
def test_the_subject_of_the_verb_is_whose_result_it_is(nlp, sentence, method, own):
    (r,) = results_of(nlp, sentence)
    assert (r["method"], r["own"]) == (method, own)


def test_an_adjective_after_the_value_names_its_direction(nlp):
    (r,) = results_of(
        nlp,
        "We propose DRank. At each compression setting, DRank achieves up to 5% higher "
        "reasoning accuracy.",
    )
    assert r["kind"] == "improvement"


def test_a_baseline_that_is_one_of_a_list_is_left_empty(nlp):
    (r,) = results_of(
        nlp,
        "We propose MENTALMS. MENTALMS also surpasses Claude and ChatGPT-4o by up to 5% in "
        "accuracy while maintaining 2x compression.",
    )
    assert (r["kind"], r["baseline"]) == ("improvement", None)


def test_a_metric_of_a_value_is_a_level_unless_a_change_noun_leads(nlp):
    kinds = {
        t: r["kind"]
        for t, r in _by_text(
            nlp,
            "We propose TivTok. TivTok improves reconstruction quality with FVD of 12.65 and "
            "yields a relative reduction in reasoning length of 36.8%.",
        ).items()
    }
    assert kinds == {"12.65": "score", "36.8%": "reduction"}


@pytest.mark.parametrize(
    "sentence",
    [
        # ranges: which end is the result?
        "We propose FlowMM. FlowMM reduces KV cache memory by 80% to 95%.",
        "We propose FlowMM. FlowMM reduces decoding latency by 1.3-1.8×.",
        # a number after "compared to" and a baseline's name is the baseline's
        "We propose ABKD. ABKD reaches higher accuracy, compared to the MIP baseline accuracy "
        "of 11%.",
    ],
)
def test_ranges_and_compared_numbers_are_not_written(nlp, sentence):
    assert results_of(nlp, sentence) == []


def test_a_title_case_description_is_a_name_only_when_the_title_opens_with_it(nlp):
    from extractors import extract

    abstract = (
        "We present Infinite Sampling for grouped RL training. Building on this, Infinite "
        "Sampling improves throughput by over 25% compared to naive sampling."
    )
    papers = [
        Paper(id="t", abstract=abstract, title="Infinite Sampling: Grouped RL Training"),
        Paper(id="u", abstract=abstract, title="Efficient and Stable Grouped RL Training"),
    ]
    titled, untitled = (item.results for item in extract(nlp, papers))
    assert [(r.method, r.own) for r in titled] == [("Infinite Sampling", True)]
    assert [(r.method, r.own) for r in untitled] == [(None, True)]
