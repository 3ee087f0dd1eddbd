"""Defects found by using the tool as its three users on real public pastes (session s14, tests/data/ut14; SOURCES.md
gives each thread's address), each fixed in general and tested here on the paste that showed it and on text written
here (other engines' and tools' forms, negations):

- a launch script that sets its variables on lines of their own ("MODEL_PATH=...", then `--model-path $MODEL_PATH
  --tp-size $GPU_NUM`) is read as the shell runs it: the model was '$MODEL_PATH' and the TP size missing
  (sgl-project/sglang#7212);
- a PCIe link narrower than its maximum is degraded whether or not the paste kept the generation lines above it
  (fangq/mcx#18: `Link Width` Max 16x / Current 8x at 100 % utilisation, the generation's header cut off);
- a release's figure wrapped in Markdown emphasis or written "tokens/sec" ("**v0.4.6:** 27 tokens/sec") is read, and
  two releases' figures on the same hardware are an A/B, not a gap another finding (the board's P2P prior, which both
  releases shared) absorbs as its own evidence; and a board whose driver refuses P2P is already in the expected band
  (its all-reduce predicted through host memory), so that prior accounts for no figure below it
  (sgl-project/sglang#7568: p2p_disabled -> the release comparison);
- a GPU count taken from a named system's catalog row ("DGXH100": 8, NVSwitch) says where it came from (it read
  "GPU count: source not recorded") and that the system is an NVSwitch one (sgl-project/sglang#14665);
- a finding's title that opens on an unnumbered GPU ("the GPU PCIe link ...") starts with a capital, as a sentence;
- the ask for the topology of a board without NVLink (4x L40S, NVIDIA/TensorRT-LLM#2140) names no `nvlink -s`
  and no NVLink among the possible paths;
- genai-perf's and AIPerf's "LLM Metrics" table is a serving benchmark's result: its latencies (any unit) and
  rates are read (sgl-project/sglang#14665, triton-inference-server/perf_analyzer#437).
"""

from pathlib import Path

import pytest
from conftest import report_json

from diagnose.artifacts import launch, serving_bench, smi_query
from diagnose.evidence import Facts, Measurement, Workload
from rules.engine import evaluate

DATA = Path(__file__).parent / "data" / "ut14"


def workloads(text: str) -> list[Workload]:
    return [r for r in launch.parse(text, "run.sh") if isinstance(r, Workload)]


def findings(path: Path) -> dict:
    return {f["rule"]: f for f in report_json("ticket", str(path))["findings"]}


# --------------------------------------------------------------------------- shell variables in a launch script

def test_launch_script_variables_are_expanded_as_the_shell_runs_them():
    w = next(x for x in workloads((DATA / "sglang7212.md").read_text()) if x.framework == "SGLang")
    assert (w.model, w.tp) == ("/mnt/Model/Qwen/Qwen3-30B-A3B", 4)


@pytest.mark.parametrize("script, model, tp", [
    # braces, `export`, quotes, vLLM
    ('export MODEL="meta-llama/Llama-3.1-70B-Instruct"\nexport TP=8\n'
     'vllm serve ${MODEL} --tensor-parallel-size ${TP}\n',
     "meta-llama/Llama-3.1-70B-Instruct", 8),
    # a variable set after the command is not what the command read; one never set stays as written
    ("python -m sglang.launch_server --model-path $M --tp 2\nM=Qwen/Qwen2.5-7B\n", "$M", 2),
    # an assignment inside a longer line is no script variable (the command's own environment is launch's business)
    ("echo TP=4 done\npython -m vllm.entrypoints.openai.api_server --model facebook/opt-125m -tp $TP\n",
     "facebook/opt-125m", None),
])
def test_script_variables_other_forms(script, model, tp):
    w = next(x for x in workloads(script) if x.framework)
    assert (w.model, w.tp) == (model, tp)


# --------------------------------------------------------------------------- PCIe width without its generation

def test_narrow_link_without_its_generation_is_degraded():
    f = findings(DATA / "mcx18_smi_q_link_x8.txt")["topology.pcie_link"]
    assert (f["category"], f["severity"]) == ("pcie_link_degraded", "critical")
    assert [(e["measured"], e["expected"]) for e in f["evidence"]] == [(8, 16)]
    # an unnumbered GPU opens the title as a sentence, as the verdict quotes it
    assert f["title"] == "The GPU PCIe link runs at x8 instead of x16"


@pytest.mark.parametrize("current, expect", [("16x", None), ("4x", "pcie_link_degraded")])
def test_link_width_alone_other_readings(current, expect):
    text = ("        GPU Link Info\n            Link Width\n                Max                 : 16x\n"
            f"                Current             : {current}\n    Utilization\n        Gpu      : 97 %\n")
    facts = Facts()
    facts.add(*smi_query.parse(text, "q.txt"))
    found = [f.category for f in evaluate(facts) if f.rule == "topology.pcie_link" and f.is_problem]
    assert found == ([expect] if expect else [])


# --------------------------------------------------------------------------- two releases' figures

def test_release_figures_in_markdown_emphasis_are_an_ab_of_their_own():
    found = findings(DATA / "sglang7568.md")
    ab = found["ticket.engine_versions"]
    assert [(e["measured"], e["expected"]) for e in ab["evidence"] if e["measured"] is not None] == [(20.0, 27.0)]
    # the board's missing P2P, the same on both releases and already in the expected band, explains neither the A/B
    # nor the figure below the band: the release comparison leads
    assert not any("releases compared" in e["detail"] for f in found.values() if f["category"] == "p2p_disabled"
                   for e in f["evidence"])
    report = report_json("ticket", str(DATA / "sglang7568.md"))
    assert report["verdict"]["category"] == "other" and report["findings"][0]["rule"] == "ticket.engine_versions"


def test_a_board_without_p2p_is_priced_into_its_band(tmp_path):
    """Written here: 2x RTX 4090 at TP2 far below the expected band, no release or setting named. The band already
    stages the all-reduce through host memory, so the board's missing P2P is not offered as what costs the rest."""
    (tmp_path / "ticket.toml").write_text(
        'description = "Llama-3-8B on two RTX 4090 with vLLM tensor parallel 2 is very slow, only 9 tok/s"\n'
        '[hardware]\ngpu = "rtx-4090"\ngpu_count = 2\n[software]\nframework = "vllm"\n'
        '[workload]\nmodel = "llama-3-8b"\ntp = 2\nbatch = 1\n'
        '[[measured]]\nmetric = "decode_tok_s"\nvalue = 9\ntp = 2\nbatch = 1\n')
    report = report_json("ticket", str(tmp_path))
    gap = next(f for f in report["findings"] if f["rule"] == "ticket.measured_vs_expected")
    # not explained away: the beyond-band lead stands (rules.beyond_band: info since s16-t5) and is the verdict
    assert gap["category"] == "other" and "Explained by" not in gap["summary"], gap
    assert report["verdict"]["category"] == "other"
    assert not any(f["category"] == "p2p_disabled" and "accounts for the measured gap" in f["summary"]
                   for f in report["findings"])


@pytest.mark.parametrize("text, figures", [
    ("After upgrading, decode got slower: __0.6.3__ = 41 tok/sec, __0.7.2__ = 30 tok/sec on the same box.",
     {"0.6.3": 41.0, "0.7.2": 30.0}),
    ("We see a regression: v0.5.1 ran at 55 tokens/s and v0.5.4 ran at 38 tokens/s.", {"0.5.1": 55.0, "0.5.4": 38.0}),
])
def test_release_figures_other_forms(text, figures):
    from rules import claims

    read = claims.release_figures(text, list(figures))
    assert {v: f for v, (f, _) in read.items()} == figures


# --------------------------------------------------------------------------- a named system's GPU count

def test_named_system_count_says_where_it_came_from():
    f = findings(DATA / "sglang14665.md")["workload.evidence_coverage"]
    assert f["title"] == "How the GPUs are connected was not measured"
    assert "NVSwitch system" in f["summary"]
    count = f["evidence"][0]
    assert count["source"] == "sglang14665.md:1" and count["measured"] == 8 and "DGXH100" in count["detail"]
    assert not any("not recorded" in e["source"] for e in f["evidence"])


# --------------------------------------------------------------------------- genai-perf / AIPerf tables

def figures(path: Path) -> dict:
    text = path.read_text()
    assert serving_bench.detect(text) >= 0.8
    return {(m.metric, m.stat): m.value for m in serving_bench.parse(text, path.name) if isinstance(m, Measurement)}


def test_aiperf_table_gives_its_latencies_and_rates():
    got = figures(DATA / "sglang14665.md")
    assert got[("itl_ms", "mean")] == 22.68 and got[("itl_ms", "p99")] == 25.07
    assert got[("ttft_ms", "median")] == 1495.17
    assert got[("request_tok_s", None)] == 44.17  # the wrapped "Per User ... (tokens/sec/user)" row
    assert not any(metric == "request_tok_s" and stat for metric, stat in got)  # a rate's percentiles are no rate


def test_genai_perf_table_in_nanoseconds_with_separators():
    got = figures(DATA / "perfanalyzer437_genai_perf_ns.txt")
    assert got[("e2e_latency_ms", "mean")] == pytest.approx(4110.62343)
    assert got[("e2e_latency_ms", "p99")] == pytest.approx(5217.352175)


def test_aiperf_labels_wrapped_over_rows_take_their_unit_from_the_row_below():
    # AIPerf's sample output (https://github.com/ai-dynamo/aiperf/blob/main/docs/tutorials/instruct-coder.md): rich
    # wraps each label, its unit on the row below the figures, a rate's name over three rows
    path = DATA / "aiperf_instructcoder_wrapped.txt"
    got = figures(path)
    assert got[("ttft_ms", "mean")] == 467.66 and got[("e2e_latency_ms", "p99")] == 95994.62
    assert got[("output_tok_s", None)] == 47.46  # "Output Token" / "Throughput" / "(tokens/sec)"
    assert got[("request_tok_s", None)] == 16.73  # "Output Token" / "Throughput Per User" / "(tokens/sec/user)"
    # "Time to First" / "Output Token (ms)" is no TTFT; nor is "Time to Second" / "Token (ms)"
    assert got[("ttft_ms", "median")] == 320.26
    assert 35962.41 not in got.values() and 58.66 not in got.values()
    text = path.read_text()
    # the unit is the next row's: the same table in genai-perf's nanoseconds is read as such, not as ms
    in_ns = text.replace("               (ms) │", "               (ns) │")
    ns = {(m.metric, m.stat): m.value for m in serving_bench.parse(in_ns, "ns.txt") if isinstance(m, Measurement)}
    assert ns[("ttft_ms", "mean")] == pytest.approx(467.66e-6, rel=1e-2)
    assert ns[("itl_ms", "p99")] == pytest.approx(67.8e-6, rel=1e-2)
    # a latency whose unit was lost (the unit rows cut) is no figure: no unit is assumed
    cut = "\n".join(line for line in text.splitlines() if "(ms) │" not in line or "Token (ms)" in line)
    bare = {m.metric for m in serving_bench.parse(cut, "cut.txt") if isinstance(m, Measurement)}
    assert bare == {"output_tok_s", "request_tok_s", "request_throughput"}


def test_genai_perf_older_labels_and_an_unrelated_table():
    table = ("┃                         Statistic ┃    avg ┃    min ┃    max ┃    p99 ┃    p90 ┃    p75 ┃\n"
             "│          Time to first token (ms) │  16.26 │  12.39 │  17.25 │  17.09 │  16.68 │  16.56 │\n"
             "│          Inter token latency (ms) │   1.85 │   1.55 │   2.04 │   2.02 │   1.97 │   1.92 │\n"
             "│ Output token throughput (per sec) │ 520.87 │    N/A │    N/A │    N/A │    N/A │    N/A │\n")
    got = {(m.metric, m.stat): m.value for m in serving_bench.parse(table, "g.txt")}
    assert got == {("ttft_ms", "mean"): 16.26, ("ttft_ms", "p99"): 17.09, ("ttft_ms", "p90"): 16.68,
                   ("itl_ms", "mean"): 1.85, ("itl_ms", "p99"): 2.02, ("itl_ms", "p90"): 1.97,
                   ("output_tok_s", None): 520.87}
    other = "┃ Name ┃ Value ┃\n│ Inter token latency (ms) │ 3.0 │\n"
    assert serving_bench.detect(other) == 0.0 and serving_bench.parse(other, "o.txt") == []


# --------------------------------------------------------------------------- the ask for the topology of a PCIe board

@pytest.mark.parametrize("text, nvlink_ask", [
    ((DATA / "trtllm2140.md").read_text(), False),  # 4x L40S: no NVLink to look for
    ("# TP 2 slow\n\nTwo RTX 3090 with vLLM --tensor-parallel-size 2 decode slower than one GPU.\n", True),  # a bridge
    ("# TP 4 slow\n\nFour RTX 4090 with vLLM --tensor-parallel-size 4 decode slower than expected.\n", False),
])
def test_topology_ask_names_nvlink_only_where_the_board_has_it(tmp_path, text, nvlink_ask):
    (tmp_path / "issue.md").write_text(text)
    f = findings(tmp_path / "issue.md")["workload.evidence_coverage"]
    assert ("nvlink -s" in f["fix"]) is nvlink_ask
    assert ("has no NVLink" in f["summary"]) is not nvlink_ask
