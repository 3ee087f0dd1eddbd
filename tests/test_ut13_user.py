"""Defects found by using the tool as its three users on real public pastes (session s13, tests/data/ut13; SOURCES.md
gives each thread's address), each fixed in general and tested here on the paste that showed it and on text written
here (other engines' and tools' forms, negations):

- llama.cpp's timing lines pasted as a quote or bare prose are tool output: only the eval line is a decode rate (the
  sample line's "31565.97 tokens per second" is the sampler's, ggml-org/llama.cpp#6476);
- a `topo -p2p` code says why P2P is refused, and the fix follows it: 'GNS' (GPU not supported) is the board or its
  driver, which no ACS or IOMMU setting changes (noonghunna/club-3090#1133, 2x RTX 5090 pasted without its name);
  'DR' (disabled by regkey), which newer legends print, is read as a cell;
- a scaling table of two models (gpt-fast's Llama-3.1 8B and 70B rows, one published README table) names each row's
  model, and its headline names the worst layout's system: two "TP2" rows read alike otherwise;
- p2pBandwidthLatencyTest's P2P=Enabled copies slower than its P2P=Disabled ones (staged through host memory) are a
  peer path the CPU forwards (NVIDIA/nccl#814: 10-12 vs 20-22 GB/s on every pair), across sockets numa_affinity;
- where the reporter says how the GPUs connect ("2x RTX A6000 and an NvLink bridge", ollama/ollama#2191) the ask for
  the topology says nothing *measured* shows it, not that nothing shows it;
- a plan whose SLO caps a layout's batch below its share of the users says so beside the table (TP1 x DP4 served 80 of
  100 users while holding 212 sequences, with nothing saying why);
- slowness said in other everyday words ("sluggish", "it crawls", "feels laggy", "at a snail's pace") is a slowness
  complaint, and ruled out when negated ("not sluggish", "no longer crawls"); it could end `healthy` before;
- a cut `nvidia-smi -q` paste (NVIDIA/nvidia-docker#1090: PCIe link and clock reasons, no power) is not asked for
  again whole: only the sections it lacks are named.
"""

from pathlib import Path

import pytest
from conftest import report_json

from diagnose.artifacts import issue_md, p2p_test, smi_csv, smi_query, topo
from diagnose.evidence import POWER, Facts, GpuFact, Measurement, P2PStatus, PairBandwidth
from rules import claims
from rules.engine import SMI_QUERY, evaluate, ticket_gaps

DATA = Path(__file__).parent / "data" / "ut13"


def issue(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def rates(facts: Facts) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for m in facts.of(Measurement):
        out.setdefault(m.metric, []).append(m.value)
    return out


# --------------------------------------------------------------------------- llama.cpp timing lines outside a fence

def test_quoted_llamacpp_timings_give_the_eval_rate_not_the_samplers():
    found = rates(issue((DATA / "llamacpp6476.md").read_text()))
    assert found["decode_tok_s"] == [13.34]  # the eval line of build b2474
    assert sorted(found["prefill_tok_s"]) == [4.39, 8.76]  # each build's prompt eval line
    assert 31565.97 not in found["decode_tok_s"] and 40933.8 not in found["decode_tok_s"]


@pytest.mark.parametrize("lines, decode", [
    # the 2024 names (llama_perf_*), pasted bare under a sentence
    ("llama_perf_sampler_print:    sampling time =      12.10 ms /   200 runs   (    0.06 ms per token, 16528.93 "
     "tokens per second)\nllama_perf_context_print:        eval time =    5210.44 ms /   199 runs   (   26.18 ms per "
     "token,    38.19 tokens per second)", 38.19),
    # quoted, with no eval line at all: no decode rate, not the sampler's
    ("> llama_print_timings:      sample time =       3.13 ms /   128 runs   (    0.02 ms per token, 40933.80 tokens "
     "per second)\n> llama_print_timings:        load time =    9945.29 ms", None),
])
def test_timing_lines_in_prose_other_forms(lines, decode):
    text = f"# Two GPUs slower than one\n\nWith two RTX 3090 the speed is poor, these are the timings:\n\n{lines}\n"
    found = rates(issue(text)).get("decode_tok_s", [])
    assert found == ([decode] if decode else [])


# --------------------------------------------------------------------------- topo -p2p codes and their fixes

def p2p_finding(text: str):
    facts = Facts()
    facts.add(*topo.parse(text, "topo.txt"))
    return facts, next(f for f in evaluate(facts) if f.rule == "topology.p2p_status")


def test_gns_on_an_unnamed_board_is_not_sent_to_the_bios():
    facts, f = p2p_finding((DATA / "club3090_1133_topo_p2p.txt").read_text())
    assert [p.status for p in facts.of(P2PStatus) if p.a != p.b] == ["GNS"]
    assert f.category == "p2p_disabled"
    assert "GPU not supported" in f.summary and "capability not shown" in f.summary
    assert "ACS" not in f.fix and "iommu" not in f.fix and "board" in f.fix


MATRIX = "nvidia-smi topo -p2p r\n \tGPU0\tGPU1\tGPU2\n GPU0\tX\t{ab}\t{ac}\n GPU1\t{ab}\tX\tOK\n GPU2\t{ac}\tOK\tX\n"


@pytest.mark.parametrize("ab, ac, words, in_fix, not_in_fix", [
    ("CNS", "CNS", "chipset not supported", "ACS", "board"),
    ("TNS", "OK", "topology not supported", "root complex", "registry"),
    ("DR", "DR", "registry key", "NVreg_RegistryDwords", "ACS"),
    ("CNS", "GNS", "usually ACS redirect", "ACS", "registry"),  # two reasons: the general account and fix
])
def test_each_code_gets_its_own_account(ab, ac, words, in_fix, not_in_fix):
    facts, f = p2p_finding(MATRIX.format(ab=ab, ac=ac))
    assert {p.capability for p in facts.of(P2PStatus)} == {"read"}
    assert words in f.summary and in_fix in f.fix and not_in_fix not in f.fix
    assert "P2P read" in f.evidence[0].detail


# --------------------------------------------------------------------------- scaling tables of several systems

PUBLISHED = Path(__file__).parent / "data" / "published"


def test_a_table_of_two_models_names_each_rows_model():
    r = report_json("scaling", PUBLISHED / "gptfast-tp-llama-3.1-a100-c9f683e.csv")
    table = next(t for k, t in r["tables"].items() if k.startswith("Scaling:"))
    cols = table["columns"]
    assert "model" in cols and "GPU" not in cols  # one GPU: no column for it
    seen = {(row[cols.index("layout")], row[cols.index("model")]) for row in table["rows"]}
    assert {("TP2", "llama-3-8b"), ("TP2", "llama-3-70b")} <= seen
    title = next(f["title"] for f in r["findings"] if f["rule"] == "scaling.tracks_prediction")
    assert "worst TP2 (llama-3-70b" in title  # the 70B's TP2 (its smallest layout, TP1 does not fit) is the worst


def test_a_table_of_one_model_keeps_no_model_column():
    r = report_json("scaling", PUBLISHED / "gptfast-tp-llama-3-8b-a100-0fb6914.csv")
    table = next(t for k, t in r["tables"].items() if k.startswith("Scaling:"))
    assert "model" not in table["columns"] and "GPU" not in table["columns"]


# --------------------------------------------------------------------------- a plan's SLO cap said beside its table

def plan_table(*slo):
    r = report_json("plan", "--model", "llama-3-8b", "--gpu", "l40s", "--gpus", "4", "--context", "4096",
                    "--seats", "100", *slo)
    return next(t for k, t in r["tables"].items() if k.startswith("Plan"))


def test_a_batch_the_slo_caps_is_said_beside_the_table():
    table = plan_table("--slo", "itl_p95=40ms")
    cols = table["columns"]
    row = next(r for r in table["rows"] if r[0] == "TP1 x DP4")
    capped = row[cols.index("batch/replica")]
    assert capped < 25 and row[cols.index("users served")] == 4 * capped  # 100 users over 4 replicas: 25 asked
    assert f"TP1 x DP4: batch per replica capped at {capped} (from 25) to meet the SLO" in table["note"]


def test_no_cap_no_words():
    assert "capped" not in plan_table("--slo", "itl_p95=200ms")["note"]
    assert "capped" not in plan_table()["note"]


# --------------------------------------------------------------------------- every paste is read as what it is

@pytest.mark.parametrize("name, kinds", [
    ("club3090_1133_topo_p2p.txt", "topo_matrix"),
    ("nccl1453_h100_topo.txt", "topo_matrix"),
    ("nccl1435_allgather_2gpu.txt", "nccl_tests"),
    ("nccl1469_h100_16node_rows.txt", "nccl_tests"),
    ("nccl583_a100_mpirun_header.txt", "nccl_tests"),
    ("nccl814_p2p_matrix_6gpu.txt", "p2p_test"),
    ("nvidia_docker1090_smi_q.txt", "smi_query"),
    ("sglang10216.md", "issue_md, serving_bench"),
])
def test_each_paste_is_recognised(name, kinds):
    (row,) = report_json("ticket", DATA / name)["tables"]["Attachments read"]["rows"]
    assert row[0] == name and kinds in row[1] and row[2] > 0, row


# --------------------------------------------------------------------------- P2P slower than staging through the host

SHARED = Path(__file__).resolve().parents[2] / "shared" / "tickets"


def p2p_findings(*texts: tuple[str, object]):
    """(facts, this rule's findings) of each text read by its parser."""
    facts = Facts()
    for text, parser in texts:
        facts.add(*parser.parse(text, "t.txt"))
    return facts, [f for f in evaluate(facts) if f.rule == "topology.p2p_slower_than_host"]


def test_p2p_below_the_host_staged_copy_is_a_forwarded_peer_path():
    facts, (f,) = p2p_findings(((DATA / "nccl814_p2p_matrix_6gpu.txt").read_text(), p2p_test))
    assert (f.category, f.severity) == ("p2p_disabled", "warning")
    assert "30 of 30 GPU pairs" in f.title
    slowest = f.evidence[0]
    assert slowest.measured < 0.9 * slowest.expected and slowest.unit == "GB/s"
    assert {p.p2p_enabled for p in facts.of(PairBandwidth)} == {True, False}


def test_p2p_faster_than_staged_is_no_finding():
    """NVIDIA/nccl-tests#74 (shared case 022): with P2P enabled the A40 pairs reach 40-101 GB/s against 19-21 staged;
    what is slow there is the socket boundary, host.cross_socket_p2p's finding."""
    case = SHARED / "022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower" / "attachment2.txt"
    if not case.exists():
        pytest.skip("../shared/tickets is not beside the checkout")
    facts, found = p2p_findings((case.read_text(), p2p_test))
    assert facts.of(PairBandwidth) and not found


CROSS = """Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)
   D\\D     0      1      2      3
     0 500.00  20.10  19.80  19.90
     1  20.20 500.00  19.70  19.60
     2  19.90  19.80 500.00  20.30
     3  19.70  19.90  20.40 500.00
Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)
   D\\D     0      1      2      3
     0 500.00  41.20  14.10  14.30
     1  41.00 500.00  14.20  14.00
     2  14.20  14.10 500.00  41.30
     3  14.00  14.30  41.10 500.00
P2P=Enabled Latency (P2P Writes) Matrix (us)
   GPU     0      1      2      3
     0   2.10  90.00  90.00  90.00
     1  90.00   2.10  90.00  90.00
     2  90.00  90.00   2.10  90.00
     3  90.00  90.00  90.00   2.10
"""
TOPO4 = """\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNODE\tSYS\tSYS\t0-23\t0
GPU1\tNODE\t X \tSYS\tSYS\t0-23\t0
GPU2\tSYS\tSYS\t X \tNODE\t24-47\t1
GPU3\tSYS\tSYS\tNODE\t X \t24-47\t1
"""


def test_pairs_across_sockets_are_numa_affinity_and_latency_is_not_compared():
    _, (f,) = p2p_findings((CROSS, p2p_test), (TOPO4, topo))
    assert f.category == "numa_affinity" and "8 of 12 GPU pairs" in f.title and "SYS" in f.evidence[-1].measured
    _, (g,) = p2p_findings((CROSS, p2p_test))  # no topology: the CPU forwards them, which way unknown
    assert g.category == "p2p_disabled" and "across CPU sockets" in g.summary


def test_the_links_ask_says_words_are_not_a_measurement():
    r = report_json("ticket", DATA / "ollama2191.md")
    (f,) = [f for f in r["findings"] if f["rule"] == "workload.evidence_coverage"]
    assert "nothing measured shows whether they talk over NVLink" in f["summary"] and "topo -m" in f["fix"]


# --------------------------------------------------------------------------- slowness in other words

@pytest.mark.parametrize("text", [
    "Generation is sluggish on 4x A100 with TP=4 in vLLM.",
    "It crawls: Llama-3-70B with SGLang at TP=8 on H100.",
    "Decoding slows to a crawl on our two L40S once the context grows.",
    "The chat feels laggy with TensorRT-LLM on 2x RTX 4090.",
    "Tokens come out at a snail's pace with Ollama on a 3090.",
    "There is noticeable lag between tokens with exllamav2.",
    "Each reply takes forever with text-generation-inference on 4 GPUs.",
    "Mixtral underperforms badly on our 8x H100 node.",
    "Responses are sooo slooow with llama.cpp.",
])
def test_slowness_in_other_words_is_a_complaint(text):
    facts = issue(text)
    assert claims.symptom(facts) in ("slow", "scaling") and claims.complaint(facts), text


@pytest.mark.parametrize("text", [
    "Generation is not sluggish at all; I only want to know how to set the KV cache size.",
    "It no longer crawls after we enabled CUDA graphs.",
    "The output is never laggy, the model just fails to load on the second GPU.",
    "We are crawling the web pages with a scraper on the same box.",  # a web crawler, not a speed
])
def test_slowness_words_negated_or_of_another_sense_are_no_complaint(text):
    assert not claims.complaint(issue(text)), text
    assert claims.symptom(issue(text)) not in ("slow", "scaling"), text


def test_a_sluggish_layer_split_reads_as_a_slow_one_does(tmp_path):
    """The same two 4090s (a real -q paste, SOURCES.md in tests/data/hardware/real): "sluggish" gets the verdict
    "slow" gets, and "not sluggish" none of it."""
    paste = (Path(__file__).parent / "data" / "hardware" / "real" / "smi_q_rtx4090_x8_535.txt").read_text()
    verdicts = {}
    for word in ("slow", "sluggish", "not sluggish"):
        (tmp_path / word).mkdir()
        (tmp_path / word / "issue.md").write_text(f"Generation is {word} with llama.cpp on these two cards.\n")
        (tmp_path / word / "smi.txt").write_text(paste)
        verdicts[word] = report_json("ticket", tmp_path / word)["verdict"]["category"]
    assert verdicts["sluggish"] == verdicts["slow"] != "healthy"
    assert verdicts["not sluggish"] == "healthy"


# --------------------------------------------------------------------------- a cut nvidia-smi -q paste

def smi_ask(path: Path) -> str:
    facts = Facts()
    facts.add(*smi_query.parse(path.read_text(), path.name))
    return next((g for g in ticket_gaps(facts) if SMI_QUERY in g), "")


def test_a_cut_smi_q_paste_is_asked_only_for_its_missing_section():
    ask = smi_ask(DATA / "nvidia_docker1090_smi_q.txt")  # link width and clock reasons (all Not Active), no power
    assert ask == f"the Power Readings section of {SMI_QUERY}"
    r = report_json("ticket", DATA / "nvidia_docker1090_smi_q.txt")
    assert "Power Readings" in r["verdict"]["summary"] and "attach `nvidia-smi -q`" not in r["verdict"]["summary"]


@pytest.mark.parametrize("name", ["smi_q_rtx4090_x8_535.txt", "smi_qx_a100_sxm4_mig_535.xml"])
def test_a_full_smi_q_paste_is_not_asked_for(name):
    """Real full pastes, text and XML (tests/data/hardware/real/SOURCES.md): every section the checks read is there."""
    assert smi_ask(Path(__file__).parent / "data" / "hardware" / "real" / name) == ""


def test_a_paste_of_other_sections_asks_for_the_three_by_name():
    """Only the Remapped Rows section (a real paste, tests/data/hardware/real/SOURCES.md) is a -q paste too: the ask
    names the sections the checks read, not the whole output again."""
    assert smi_ask(DATA.parent / "hardware" / "real" / "smi_q_remapped_rows_uncorrectable_pending.txt") == (
        f"the GPU Link Info, Power Readings and Clocks Event Reasons sections of {SMI_QUERY}")


def test_no_smi_paste_asks_for_all_of_it():
    assert SMI_QUERY in ticket_gaps(Facts())


def test_a_query_gpu_csv_holds_the_sections_its_figures_fill():
    """A real `--query-gpu` CSV (netdata's tesla-p100.csv, tests/data/hardware/real/SOURCES.md) is no -q paste, yet its
    power.draw column is the Power Readings figure: only the other two sections are asked for, by name, and the one
    answer (GpuFact.held_sections) says so for each record."""
    path = DATA.parent / "hardware" / "real" / "smi_csv_tesla_p100.csv"
    facts = Facts()
    facts.add(*smi_csv.parse(path.read_text(), path.name))
    assert [g.held_sections() for g in facts.of(GpuFact)] == [[POWER]]
    assert next(g for g in ticket_gaps(facts) if SMI_QUERY in g) == (
        f"the GPU Link Info and Clocks Event Reasons sections of {SMI_QUERY}")
