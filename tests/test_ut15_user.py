"""Defects found by answering real public threads as a support engineer (session s15, tests/data/ut15; SOURCES.md
gives each thread's address and the verdict before and after), each fixed in general and tested here on the paste that
showed it and on text written here (paraphrases, negations, other engines):

- a pipeline degree of 1 is no pipeline ("--pipeline_parallel 1", "pipeline_parallel_size=1"): it made pp_bubble the
  answer to an H100 all-reduce question (IBM/pytorch-communication-benchmarks#1);
- a loss against another engine ("2 times slower than lmdeploy") compares software, not GPU counts
  (ollama/ollama#3841);
- P2P run enabled as one arm of the reporter's own A/B means the driver did not refuse it
  (tinygrad/open-gpu-kernel-modules#17);
- a regression bisected to one pull request or commit is the engine's, like one between releases, with the figures
  before and after the change (sgl-project/sglang#30200);
- "as expected" said of a run is a statement, not an "is this normal?" question (NVIDIA/TensorRT-LLM#5929);
- "the CPU limits the GPU", "monothreaded": the host-bound vocabulary (ollama/ollama#9406);
- TP across nodes that hold one GPU each is the only multi-GPU layout there, a lead and not a misplacement
  (the NVIDIA developer forum's two-DGX-Spark thread);
- a results row whose unit is in its label ("| Narrative decode TPS | 73.41 |") is a figure
  (noonghunna/club-3090#698).
"""

from pathlib import Path

import pytest
from conftest import report_json, shared_path

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts, Measurement, Note
from rules import claims

DATA = Path(__file__).parent / "data" / "ut15"


def report(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def findings(name: str) -> dict:
    return {f["rule"]: f for f in report(name)["findings"]}


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse("# Question\n\n" + text + "\n", "issue.md"))
    return facts


# --------------------------------------------------------------------------- a pipeline degree of 1

def test_pipeline_degree_one_is_no_pipeline():
    r = report("ibm_ptcb1")
    assert "ticket.pp_bubble" not in {f["rule"] for f in r["findings"]}
    assert r["verdict"]["category"] == "expected_physics"  # "is this normal?" with nothing broken shown


@pytest.mark.parametrize("text, pipeline", [
    ("torchrun megatron-allreduce.py --tensor_parallel 1 --pipeline_parallel 1", False),
    ("vllm serve m --pipeline-parallel-size 1 --tensor-parallel-size 4", False),
    ("pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 1", False),
    ("LLM(model=m, pipeline_parallel_size=1)", False),
    ("LLM(model=m, pipeline_parallel_size=2)", True),
    ("vllm serve m --pipeline-parallel-size 2", True),
    ("We run it with pipeline parallelism over two nodes.", True),
])
def test_pipeline_words_with_their_degree(text, pipeline):
    assert bool(claims.find(said(text), "pipeline_parallel")) is pipeline


# --------------------------------------------------------------------------- a loss against another engine

def test_loss_against_another_engine_is_no_layout_loss():
    found = findings("ollama3841")
    assert "ticket.loss_beyond_physics" not in found


@pytest.mark.parametrize("text, factor", [
    ("On two A100s vLLM with TP=2 is 3x slower than lmdeploy on the same GPUs.", None),
    ("With 2 GPUs it runs 2.5 times slower compared to vLLM.", None),
    ("sglang on 4 GPUs is 2x faster than ollama", None),
    # a layout against a layout stays a loss
    ("TP=2 is 3x slower than TP=1 on two A100s.", 3.0),
    ("ollama on 2 GPUs is 2x slower than on one GPU", 2.0),
])
def test_losses_against_engines_and_layouts(text, factor):
    losses = claims.stated_losses(said(text))
    assert [round(c.data["factor"], 2) for c in losses][:1] == ([factor] if factor else [])


# --------------------------------------------------------------------------- P2P run both ways

def test_p2p_disabled_as_an_arm_of_the_reporters_ab_is_no_refusal():
    r = report("tinygrad17")
    assert "ticket.p2p_refused" not in {f["rule"] for f in r["findings"]}
    assert r["verdict"]["category"] != "p2p_disabled"


@pytest.mark.parametrize("text, enabled", [
    ("Enabling P2P capability on 8 RTX 4090 GPUs results in lower alltoall_perf than when P2P is disabled.", True),
    ("With P2P enabled all_reduce_perf on 4x 3090 is slower than with NCCL_P2P_DISABLE=1.", True),
    ("P2P enabled vs disabled: 18 vs 22 GB/s busbw", True),
    ("P2P is disabled on our 4090 box and TP is slow.", False),
    ("We cannot enable P2P; with P2P disabled we get 5 GB/s.", False),
    ("How do I enable P2P? With P2P disabled the busbw is 6 GB/s.", False),
    ("I tried enabling P2P but it failed; P2P disabled.", False),
])
def test_p2p_run_enabled(text, enabled):
    assert bool(claims.p2p_run_enabled(said(text))) is enabled


def test_a_refusal_without_an_enabled_arm_still_reads_as_one(tmp_path):
    (tmp_path / "issue.md").write_text("# TP slow on 4x RTX 4090\n\nP2P is not supported between the GPUs "
                                       "(CANNOT Access Peer), so vLLM with TP=4 decodes slowly.\n")
    assert "ticket.p2p_refused" in {f["rule"] for f in report_json("ticket", str(tmp_path))["findings"]}


# --------------------------------------------------------------------------- a bisected regression

def test_regression_bisected_to_a_change_is_the_engines():
    r = report("sglang30200")
    assert r["verdict"]["category"] == "other"
    f = r["findings"][0]
    assert f["rule"] == "ticket.engine_versions" and "PR #29223" in f["title"]
    assert [(e["measured"], e["expected"], e["unit"]) for e in f["evidence"] if e["measured"] is not None] \
        == [(124.8, 128.8, "tok/s")]


@pytest.mark.parametrize("text, refs, figures", [
    ("We bisected the regression to commit 1a2b3c4d: 41.0 tok/s before and 35.5 tok/s after.", ["commit 1a2b3c4d"],
     {"before": (41.0, "tok/s"), "after": (35.5, "tok/s")}),
    # a latency: the longer time is the one after the change, whichever is written first
    ("ITL regressed after PR #1234: 23.4 ms with it, 20.1 ms on its parent.", ["PR #1234"],
     {"before": (20.1, "ms"), "after": (23.4, "ms")}),
    # NCCL's own commit is NCCL's; a change named without a slowdown is no regression
    ("busbw regressed after NCCL commit abc1234f.", None, {}),
    ("PR #123 adds FP8 support.", None, {}),
])
def test_code_change_regressions(text, refs, figures):
    found = claims.code_change_regression(text)
    assert (found[1] if found else None) == refs
    assert claims.code_change_figures(text) == figures


# --------------------------------------------------------------------------- "as expected" said, not asked

def test_as_expected_in_a_statement_is_no_question():
    found = findings("trtllm5929")
    assert not any("Physics decides this layout" in f["title"] for f in found.values())


@pytest.mark.parametrize("text, kind", [
    ("TP=2 scales as expected, but TP=4 on the same box is slower than TP=2.", "scaling"),
    ("Everything works as expected except the TTFT, which is much slower on B200.", "slow"),
    ("Is this as expected for 4x L40S?", "normal?"),
    ("Is 40 tok/s on 2x 4090 normal?", "normal?"),
])
def test_symptom_of_as_expected(text, kind):
    assert claims.symptom(said(text)) == kind


# --------------------------------------------------------------------------- the CPU holding the GPU back

def test_cpu_limits_gpu_reads_as_host_bound():
    r = report("ollama9406")
    assert r["verdict"]["category"] == "host_bound" and r["findings"][0]["rule"] == "ticket.cpu_bound"


@pytest.mark.parametrize("text, host", [
    ("CPU limits GPU computation because something is monothreaded", True),
    ("the server is mono-threaded and that limits the GPUs", True),
    ("Generation speed is limited by the CPU: the GPU waits.", True),
    ("The CPU does not limit the GPU here.", False),
    ("The GPUs are not limited by the CPU.", False),
])
def test_cpu_limit_words(text, host):
    assert any(c.kind == "cpu_ab" and not c.negated for c in claims.claims(said(text))) is host


# --------------------------------------------------------------------------- one GPU per node

def test_tp_over_nodes_of_one_gpu_is_a_lead():
    r = report("nvforum_spark_tp2")
    f = {x["rule"]: x for x in r["findings"]}["workload.cross_node_tp"]
    assert (f["severity"], f["confidence"]) == ("info", 0.3)
    assert r["verdict"]["category"] != "cross_node_tp"
    # no GPUs share a machine, so no node topology is asked for; the network path is
    assert "workload.evidence_coverage" not in {x["rule"] for x in r["findings"]}
    assert "nccl.gdr" in {x["rule"] for x in r["findings"]}


@pytest.mark.parametrize("gpus, nodes", [(16, 2), (16, 16)])
def test_tp_over_nodes_of_servers_stays_critical(tmp_path, gpus, nodes):
    """H100 servers hold eight GPUs: TP over nodes of one GPU each ("--nnodes 16") is a placement, not the board's."""
    (tmp_path / "ticket.toml").write_text(
        'description = "Llama-3-70B decode is slow with TP=16 over several nodes"\n'
        f'[hardware]\ngpu = "h100-sxm"\ngpu_count = {gpus}\nnodes = {nodes}\n'
        '[workload]\nmodel = "llama-3-70b"\ntp = 16\n')
    f = {x["rule"]: x for x in report_json("ticket", str(tmp_path))["findings"]}["workload.cross_node_tp"]
    assert (f["severity"], f["category"]) == ("critical", "cross_node_tp")


# --------------------------------------------------------------------------- a unit written in a table row's label

def test_unit_in_a_results_rows_label_is_read():
    r = report("club3090_698")
    f = r["findings"][0]
    assert (r["verdict"]["category"], f["rule"]) == ("expected_physics", "ticket.measured_vs_expected")
    assert f["evidence"][0]["measured"] == 72.67 and f["evidence"][0]["source"] == "issue.md:29"


@pytest.mark.parametrize("row, read", [
    ("| Narrative decode TPS | 73.41 |", ("decode_tok_s", 73.41, "tok/s")),
    ("| Decode speed (tokens/s) | 41.2 |", ("decode_tok_s", 41.2, "tok/s")),
    ("| TTFT (ms) | 139 |", ("ttft_ms", 139.0, "ms")),
    # no unit in the label, or more than one figure in the row: left as written
    ("| GPUs | 2 |", None),
    ("| decode TPS | 36 | 50 |", None),
])
def test_label_units(row, read):

    got = [(m.metric, m.value, m.unit) for m in issue_md.parse("# q\n\nOn 2x 3090 with TP=2:\n\n" + row + "\n",
                                                               "issue.md") if isinstance(m, Measurement)]
    assert got == ([read] if read else [])


# --------------------------------------------------------------------------- a setting alone makes no verdict

# Launch lines as each engine's docs write them (vLLM: https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html,
# SGLang: https://docs.sglang.ai/backend/server_arguments.html, TensorRT-LLM:
# https://nvidia.github.io/TensorRT-LLM/commands/trtllm-serve.html), with valid and invalid parallel degrees.
BARE_LAUNCHES = [
    ("vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 0", None),
    ("vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2", 2),
    ("python -m vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-7B-Instruct --tp -1", None),
    ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 0", None),
    ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp 4", 4),
    ("trtllm-serve meta-llama/Llama-3.1-8B-Instruct --tp_size 0 --pp_size 1", None),
]


@pytest.mark.parametrize("line,tp", BARE_LAUNCHES)
def test_a_bare_launch_line_is_no_verdict(tmp_path, line, tp):
    """CUDA graphs on (no --enforce-eager) is a setting found fine: it moves a prior and says nothing about how the
    system runs, so a launch line alone comes back insufficient_data, never healthy; a degree below 1 lays nothing
    out and is no layout."""
    (tmp_path / "launch.sh").write_text(line + "\n")
    r = report_json("ticket", str(tmp_path))
    assert r["verdict"]["category"] == "insufficient_data"
    assert {w["tp"] for w in r["facts"]["workload"]} == {tp}


def test_a_setting_found_fine_still_sits_beside_a_measured_pass(tmp_path):
    """A measured figure that fits still answers with the launch line beside it: the setting check neither makes nor
    blocks 'healthy'. The bundle is shared ticket 018 (https://github.com/Azure/azurehpc-health-checks/issues/162,
    256.63 GB/s P2P on a bridged H100 PCIe pair)."""
    shared = shared_path("tickets", "018-azurehpc-health-checks-162-h100-pcie-inactive-links-by-design")
    for f in ("attachment1.log", "ticket.toml"):
        (tmp_path / f).write_text((shared / f).read_text())
    (tmp_path / "launch.sh").write_text("vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2\n")
    r = report_json("ticket", str(tmp_path))
    assert {"workload.eager_mode", "topology.pair_bandwidth"} <= {f["rule"] for f in r["findings"]}
    assert r["verdict"]["category"] == "healthy" and "topology.pair_bandwidth" in r["verdict"]["summary"]


# --------------------------------------------------------------------------- a scaling pair in prose

# Each pair as a reporter writes it, the unit given once and left out of the second figure, against the same pair with
# the unit said twice: the same layouts and figures, and the same verdict (the prose scaling reading).
ELIDED = [
    ("With 1 GPU I get 97 tok/s, with 2 GPUs I get 120.", "With 1 GPU I get 97 tok/s, with 2 GPUs I get 120 tok/s."),
    ("TP1: 97 t/s, TP2: 120", "TP1: 97 t/s, TP2: 120 t/s"),
    ("with tensor parallel 1 it does 97 tokens/s, with TP=2 about 120.",
     "with tensor parallel 1 it does 97 tokens/s, with TP=2 about 120 tokens/s."),
]


@pytest.mark.parametrize("short,full", ELIDED)
def test_a_unit_left_out_of_the_second_figure_is_the_firsts(tmp_path, short, full):
    def rates(text):
        return sorted((m.value, m.tp, m.gpus) for m in said(text).of(Measurement))

    assert rates(short) == rates(full) and len(rates(short)) == 2
    verdicts = []
    for k, text in enumerate((short, full)):
        d = tmp_path / str(k)
        d.mkdir()
        (d / "issue.md").write_text(f"# Llama-3.1-8B on 2x RTX 4090 with vLLM: is this scaling normal?\n\n{text}\n")
        verdicts.append(report_json("ticket", str(d))["verdict"]["category"])
    assert verdicts[0] == verdicts[1] == "expected_physics"


@pytest.mark.parametrize("text", [
    "With 1 GPU I get 97 tok/s, with 2 GPUs 24 GB are used.",   # a size has its own unit
    "With 1 GPU I get 97 tok/s, with 2 GPUs it takes 200 ms",  # so has a time
    "With 1 GPU I get 97 tok/s, with 2 GPUs since 2023",       # a date
    "With 1 GPU I get 97 tok/s, with 2 GPUs not 200",          # a negated figure
    "I get 97 tok/s, and the model has 200",                   # no layout named: nothing compared
    "With 2 GPUs the driver is 550",                           # no unit given before
])
def test_no_unit_carried_to_what_is_no_rate(text):
    assert [m.value for m in said(text).of(Measurement)] in ([97.0], [])


# --------------------------------------------------------------------------- layout columns of a results table

# GitHub-flavoured Markdown's tables (https://github.github.com/gfm/#tables-extension-): the outer pipes are optional
# and the delimiter row ("-- | --", "|---|---|") makes the table, as TensorRT-LLM#5929 (tests/data/ut15/trtllm5929)
# writes its results. TP/PP/EP columns are each row's layout: a pipeline stage holds its own GPUs (TP x PP); experts
# spread over the TP group's GPUs (https://nvidia.github.io/TensorRT-LLM/advanced/expert-parallelism.html).
LAYOUT_TABLE = ["Throughput (tok/s) by layout, Llama-3.1-70B on 8x H100:", "",
                "{o}TP | PP | EP | Throughput{c}", "{o}-- | -- | -- | --{c}",
                "{o}8 | 1 | 1 | 1000{c}", "{o}4 | 2 | 1 | 900{c}", "{o}2 | 4 | None | 700{c}"]


@pytest.mark.parametrize("o,c", [("", ""), ("| ", " |")])
def test_layout_columns_give_each_rows_layout(o, c):
    text = "\n".join(ln.format(o=o, c=c) for ln in LAYOUT_TABLE)
    table = next(n for n in said(text).of(Note) if n.kind == "results_table")
    assert [(r["tp"], r["pp"], r["ep"], r["gpus"], r["value"]) for r in table.data["rows"]] == [
        (8, 1, 1, 8, 1000.0), (4, 2, 1, 8, 900.0), (2, 4, 1, 8, 700.0)]  # the PP column is no rate


def test_a_tp_column_alone_is_read_as_before():
    text = "GPUs | tok/s\n--- | ---\n1 | 97\n2 | 120\n"
    table = next(n for n in said(text).of(Note) if n.kind == "results_table")
    assert [(r["gpus"], r["value"], "tp" in r) for r in table.data["rows"]] == [(1, 97.0, False), (2, 120.0, False)]
