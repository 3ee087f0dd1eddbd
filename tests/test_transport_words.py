"""Transport and fabric evidence as reporters paste and say it (issue 11 k): peer access refused in the words of
the engines' warnings and in plain speech, an nccl-tests paste whose "#" lines GitHub turned into headings, a
GPU's model number that is no figure, release differences too small to be a regression, and peer access refused
over an NVLink that is up. Each claim is tried on phrasings not taken from any case, and on negations."""

import pytest
from test_ticket_failure_rules import fired, ticket
from test_ticket_questions import said
from test_ticket_reasoning import answer as case_answer

from diagnose.artifacts import issue_md, nccl_tests
from diagnose.evidence import GpuFact, Measurement, Workload
from rules import claims

# --------------------------------------------------------------------------- peer access refused, in words

@pytest.mark.parametrize("text", [
    "[TM][WARNING] Device 0 peer access Device 1 is not available.",
    "[TensorRT-LLM][WARNING] Device 2 peer access Device 5 is not available.",
    "The two cards can not do p2p, so tensor parallel stops at start-up.",
    "We are unable to establish peer access between GPU0 and GPU1.",
    "Peer-to-peer doesn't work between the 4090s on this board.",
    "P2P did not work after the driver update.",
])
def test_peer_access_refused_is_read_in_its_many_forms(text):
    found = claims.find(said(text), "no_p2p")
    assert found and not found[0].guess


@pytest.mark.parametrize("text", [
    "There is no 'unable to establish peer access' warning in the log.",  # ruled out
    "P2P works fine between all pairs; the slowdown is elsewhere.",  # nothing refused
    "We never saw that peer-to-peer doesn't work on this host.",
])
def test_peer_access_ruled_out_or_working_is_no_refusal(text):
    assert not claims.find(said(text), "no_p2p")


def test_peer_access_refused_as_a_question_or_a_guess_stays_a_guess():
    for text in ("Could it be that P2P doesn't work on these cards?",
                 "Maybe the GPUs can not do p2p on this motherboard."):
        found = claims.find(said(text), "no_p2p")
        assert found and found[0].guess


def test_cannot_do_p2p_on_geforce_is_p2p_disabled():
    answer, findings = ticket("Two RTX 4090 on one board: vLLM with --tensor-parallel-size 2 fails at start, "
                              "the GPUs can not do p2p.")
    assert [f.category for f in fired(findings, "ticket.p2p_refused")] == ["p2p_disabled"]
    assert answer.category == "p2p_disabled" and answer.confidence < 0.7  # words only: never confident


# --------------------------------------------------------------------------- the symptom: "can not"

@pytest.mark.parametrize("text, kind", [
    ("The server can not start after the upgrade.", "error"),
    ("vLLM can not allocate the KV cache on the second GPU.", "error"),
    ("I can not improve throughput with tensor parallelism on 4 GPUs.", None),  # a performance question
])
def test_can_not_is_an_error_only_before_an_operation(text, kind):
    got = claims.symptom(said(text))
    assert (got == "error") == (kind == "error")


# --------------------------------------------------------------------------- nccl-tests pasted without "#"

HEADLESS = """all_reduce_perf -b 8 -e 128M -f 2 -g 2
nThread 1 nGpus 2 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 validation: 1

Using devices
Rank  0 Pid   3454 on gpu-box device  0 [0x81] NVIDIA GeForce RTX 4090
Rank  1 Pid   3454 on gpu-box device  1 [0xa1] NVIDIA GeForce RTX 4090

                                                       out-of-place                       in-place
       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error
        (B)    (elements)                       (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   134217728      33554432     float     sum    10485    12.80    12.80  0e+00    10471    12.82    12.82  0e+00
"""


def test_an_nccl_tests_paste_that_lost_its_hash_marks_is_still_read():
    records = nccl_tests.parse(HEADLESS, "log.txt")
    gpus = [r for r in records if isinstance(r, GpuFact)]
    assert [g.name for g in gpus] == ["NVIDIA GeForce RTX 4090"] * 2
    assert [w.gpu_count for w in records if isinstance(w, Workload)] == [2]
    assert nccl_tests.detect(HEADLESS) >= 0.5


def test_prose_about_ranks_is_no_device_line():
    records = nccl_tests.parse("Rank 0 is always slower than rank 1.\nRank 3 waits for the others.\n", "x")
    assert not [r for r in records if isinstance(r, (GpuFact, Workload))]


@pytest.mark.parametrize("prefix, rule_id", [
    ("u6c11", "ticket.hang_on_pcie"),  # the headless paste gives the hang its two GPUs
    ("u6c09", "ticket.p2p_refused"),  # peer access refused over NVLink links that are up, in a failing run
])
def test_real_development_cases_reach_p2p_disabled(tmp_path, prefix, rule_id):
    answer, findings = case_answer(tmp_path, prefix)
    assert [f.category for f in fired(findings, rule_id)] == ["p2p_disabled"]
    assert answer.category == "p2p_disabled"


# --------------------------------------------------------------------------- a GPU's model number is no figure

@pytest.mark.parametrize("line", [
    "I ran nccl-tests on 8*3090 of a single machine.",
    "I ran nccl-tests on 4×4090 in one box.",
    "nccl-tests on the RTX 3090 pair gives odd numbers.",
])
def test_a_gpu_model_number_beside_nccl_tests_is_not_a_busbw(line):
    records = issue_md.parse(f"# Question\n\n{line}\n", "issue.md")
    assert not [m for m in records if isinstance(m, Measurement) and m.metric == "busbw_gbs"]


def test_a_bare_busbw_figure_beside_nccl_tests_is_still_read():
    records = issue_md.parse("# Question\n\nWith nccl-tests all_reduce_perf I only get 18 busbw on 8 GPUs.\n",
                             "issue.md")
    assert [m.value for m in records if isinstance(m, Measurement) and m.metric == "busbw_gbs"] == [18.0]


# --------------------------------------------------------------------------- release differences in words

@pytest.mark.parametrize("text, ratio", [
    ("NCCL 2.8.3 is around 10% slower than 2.7.8", 1.1),
    ("2.19 is 3x slower than 2.18", 3.0),
    ("bandwidth is lower by about 25 % with the new release", 1.25),
    ("NCCL 2.18 vs 2.20 on the same nodes", None),
])
def test_a_stated_release_difference_is_read_as_a_ratio(text, ratio):
    assert claims.stated_release_ratio(text) == (pytest.approx(ratio) if ratio else None)


def test_a_small_release_difference_is_a_lead_not_a_regression():
    answer, findings = ticket("On 8 RTX 3090 in one server NCCL 2.8.3 is about 8% slower than NCCL 2.7.8 in "
                              "all_reduce_perf. Is that a regression?")
    lead = [f for f in findings if f.rule == "nccl.regression"]
    assert lead and lead[0].severity == "info" and lead[0].category == "expected_physics"
    assert lead[0].confidence < 0.5  # a lead; the verdict states its class's development level, below 0.7
    assert answer.category == "expected_physics" and answer.confidence < 0.7


@pytest.mark.parametrize("text", [
    "On 8 A100 NCCL 2.19.3 is about 40% slower than NCCL 2.18.5 in all_reduce_perf.",
    "Training is 3x slower with NCCL 2.16.2 than with NCCL 2.14.3 on the same machine.",
])
def test_a_large_release_difference_stays_a_regression(text):
    answer, findings = ticket(text)
    assert [f.severity for f in findings if f.rule == "nccl.regression"] == ["warning"]
    assert answer.category == "nccl_regression"


# --------------------------------------------------------------------------- refused over an NVLink that is up

@pytest.mark.parametrize("sentence", [
    # a guess, not an observation
    "Since updating to v0.6.0, maybe my two Nvlinked 3090's can not do p2p?",
    # P2P said to work: nothing refused
    "Since updating to v0.6.0, p2p works on my two Nvlinked 3090's and tensor parallel runs.",
])
def test_over_active_nvlink_a_guess_or_working_p2p_is_no_refusal(tmp_path, sentence):
    old = "Since updating to v0.6.0, my two Nvlinked 3090's can not do p2p and work with tensor parallel."
    _, findings = case_answer(tmp_path, "u6c09", lambda text: text.replace(old, sentence))
    assert not fired(findings, "ticket.p2p_refused")


# --------------------------------------------------------------------------- `topo -p2p` cells, lsmod, GDRDMA, ACS

@pytest.mark.parametrize("text, kind", [
    ("nvidia-smi topo -p2p r shows CNS between every pair of our L40S.", "no_p2p"),
    ("`nvidia-smi topo -p2p w` prints NS for GPU0-GPU3.", "no_p2p"),
    ("All pairs report TNS, so peer access cannot work.", "no_p2p"),
    ("lsmod | grep peermem shows nothing on the second node.", "module_missing"),
    ("The log has via NET/IB/0 without GDRDMA on both hosts.", "gdr_off"),
    ("lspci -vvv | grep ACSCtl gives ACSCtl: SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+", "pcie_redirect"),
    ("ACS is enabled on the PLX switch in the BIOS.", "pcie_redirect"),
    ("nvidia-smi -q under load: PCIe Generation Current : 1, Max : 4.", "pcie_degraded"),
    ("The kernel command line has intel_iommu=on.", "pcie_redirect"),
    ("IOMMU is enabled in the BIOS of this workstation.", "pcie_redirect"),
    ("nvidia-smi nvlink -e shows CRC errors on link 2 of GPU 5.", "link_down"),
    ("Replay errors keep increasing on GPU 3's NVLinks.", "link_down"),
])
def test_tool_words_said_in_prose_are_claims(text, kind):
    found = claims.find(said(text), kind)
    assert found and not found[0].guess


@pytest.mark.parametrize("text, kind", [
    ("CNS  = Chipset not supported", "no_p2p"),  # the legend printed under every matrix
    ("ACSCtl: SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd-", "pcie_redirect"),  # ACS off
    ("ACS is disabled on all bridges.", "pcie_redirect"),
    ("There are no GDRDMA issues once nvidia-peermem is loaded.", "gdr_off"),
    ("PCIe Generation Current : 4, Max : 4.", "pcie_degraded"),
    ("We boot with intel_iommu=on iommu=pt as NVIDIA recommends.", "pcie_redirect"),  # passthrough
    ("IOMMU is disabled in the BIOS.", "pcie_redirect"),
    ("nvidia-smi nvlink -e shows no CRC errors on any link.", "link_down"),
    ("nvidia-smi nvlink -e: zero replay errors everywhere.", "link_down"),
])
def test_the_same_tools_saying_all_is_well_are_no_claims(text, kind):
    assert not claims.find(said(text), kind)


def test_acs_or_iommu_on_bare_metal_with_a_hang_is_p2p_disabled():
    answer, findings = ticket("4x RTX A6000 on bare metal: all_reduce_perf hangs between GPU1 and GPU2. "
                              "lspci shows ACSCtl: SrcValid+ ReqRedir+ CmpltRedir+ on the switch ports.")
    assert [f.category for f in fired(findings, "ticket.pcie_redirect")] == ["p2p_disabled"]
    assert answer.category == "p2p_disabled"
    _, in_vm = ticket("In our KVM guest all_reduce_perf hangs; ACSCtl: SrcValid+ ReqRedir+ CmpltRedir+.")
    assert not fired(in_vm, "ticket.pcie_redirect")  # a guest's ACS is the hypervisor's: virtualization judges it


# --------------------------------------------------------------------------- one GPU slow to every peer

@pytest.mark.parametrize("text", [
    "In p2pBandwidthLatencyTest GPU 3 is slow to every peer: 3 GB/s while the other pairs get 25 GB/s.",
    "Every pair that includes GPU 5 is slow in nvbandwidth, the rest reach 50 GB/s.",
    "GPU2 gets only 4 GB/s bandwidth with all the other GPUs.",
])
def test_one_gpu_slow_to_all_its_peers_points_at_its_link(text):
    answer, findings = ticket("Four A6000 in one workstation, tensor parallel is slow. " + text)
    assert [f.category for f in fired(findings, "ticket.one_gpu_link")] == ["pcie_link_degraded"]
    assert answer.category == "pcie_link_degraded"


@pytest.mark.parametrize("text", [
    "No GPU is slow to every peer; all pairs reach 25 GB/s.",  # ruled out
    "GPU 3 is slower than the others at the same batch size.",  # compute, not transfers: a straggler
    "Maybe GPU 3 is slow to every peer in p2pBandwidthLatencyTest?",  # a guess
])
def test_no_one_gpu_link_without_the_observation(text):
    _, findings = ticket("Four A6000 in one workstation, tensor parallel is slow. " + text)
    assert not fired(findings, "ticket.one_gpu_link")


def test_one_gpu_slow_on_an_nvlink_board_suspects_its_nvlinks():
    _, findings = ticket("8x H100 SXM with NVLink: in nvbandwidth GPU 6 is slow to all other GPUs, 120 GB/s against "
                         "the 350 GB/s the other pairs reach.")
    assert [f.category for f in fired(findings, "ticket.one_gpu_link")] == ["nvlink_down"]


# --------------------------------------------------------------------------- SGLang spread over nodes

def test_sglang_nnodes_spreads_its_tp_times_pp_world_over_the_nodes():
    from diagnose.artifacts import launch

    (w,) = [r for r in launch.parse("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 "
                                    "--dist-init-addr 10.0.0.1:5000 --nnodes 2 --node-rank 0", "cmd.txt")
            if isinstance(r, Workload)]
    assert (w.tp, w.nodes, w.gpu_count) == (16, 2, 16)
    (w,) = [r for r in launch.parse("python3 -m sglang.launch_server --model-path m --tp 8 --pp-size 2 --nnodes 2",
                                    "cmd.txt") if isinstance(r, Workload)]
    assert (w.tp, w.nodes, w.gpu_count) == (8, 2, 16)  # TP 8 per node, pipeline across: no cross-node TP


# --------------------------------------------------------------------------- a link read under load, in words

QUERY = """```
$ nvidia-smi --format=csv --query-gpu=index,pcie.link.gen.current,pcie.link.width.current,\
pcie.link.gen.max,pcie.link.width.max
index, pcie.link.gen.current, pcie.link.width.current, pcie.link.gen.max, pcie.link.width.max
0, 4, 16, 4, 16
1, 1, 16, 4, 16
```
"""


def issue_verdict(tmp_path, body: str):
    from diagnose.bundle import read_bundle
    from rules.engine import evaluate, ticket_verdict

    title = "# Multi-GPU inference is slower than expected\n\n### Describe the bug\n\n"
    (tmp_path / "issue.md").write_text(title + body)
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


@pytest.mark.parametrize("words", [
    "This is while running vLLM TP2, decode is slow.",
    "Captured under load with TP=2; decode is slow.",
    "Read during inference; decode is slow.",
])
def test_a_low_link_generation_read_under_load_is_degraded(tmp_path, words):
    answer, findings = issue_verdict(tmp_path, QUERY + words + "\n")
    assert [f.severity for f in findings if f.rule == "topology.pcie_link"] == ["critical"]
    assert answer.category == "pcie_link_degraded"


@pytest.mark.parametrize("words", [
    "Decode with TP=2 is slow.",  # when it was read is not said: power saving stays possible
    "This was read while the GPUs were idle, decode with TP=2 is slow.",
])
def test_a_low_link_generation_without_load_is_no_fault(tmp_path, words):
    _, findings = issue_verdict(tmp_path, QUERY + words + "\n")
    assert [f.severity for f in findings if f.rule == "topology.pcie_link" and f.category != "insufficient_data"] \
        == ["ok"]


# --------------------------------------------------------------------------- tool output pasted without a fence

NVLINK_UNFENCED = """GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1234)
	 Link 0: 25 GB/s
	 Link 1: <inactive>
	 Link 2: 25 GB/s
GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-5678)
	 Link 0: 25 GB/s
	 Link 1: 25 GB/s
	 Link 2: 25 GB/s
"""


def test_unfenced_tool_output_is_output_not_prose(tmp_path):
    from diagnose.evidence import Measurement as M

    body = "The all-reduce is much slower than expected. nvidia-smi nvlink -s:\n\n" + NVLINK_UNFENCED
    records = issue_md.parse("# All-reduce is slow\n\n" + body, "issue.md")
    assert not [m for m in records if isinstance(m, M) and m.stat == "reported"]  # a link's rate is no measurement
    answer, _ = issue_verdict(tmp_path, body)
    assert answer.category == "nvlink_down" and answer.confidence > 0.65  # parsed output, not the reporter's words


def test_a_rate_the_reporter_wrote_stays_a_measurement():
    from diagnose.evidence import Measurement as M

    records = issue_md.parse("# All-reduce is slow\n\nWe only get 25 GB/s of bus bandwidth with all_reduce_perf "
                             "on 8 A100.\n", "issue.md")
    assert [m.value for m in records if isinstance(m, M) and m.stat == "reported"] == [25.0]


# --------------------------------------------------------------------------- the network and the release, in words

@pytest.mark.parametrize("rule_id, category, text", [
    # nodes joined by Ethernet alone: NCCL's socket transport between them
    ("ticket.tcp_only", "socket_fallback", "DDP on 2 machines with 4x 3090 each is slower than one machine; the "
     "machines are connected with 1 Gbps ethernet."),
    ("ticket.tcp_only", "socket_fallback", "Multi-node training on two servers is slow: there is only 25GbE between "
     "the servers, no RDMA."),
    ("ticket.tcp_only", "socket_fallback", "Two nodes talking plain TCP/IP, and the all-reduce across them is very "
     "slow."),
    ("ticket.tcp_only", "socket_fallback", "One GPU per node on 4 nodes over 25GbE, and decode with TP=4 is slow."),
    # a distributed job slower on another PyTorch release: its bundled NCCL changed with it
    ("ticket.torch_releases", "nccl_regression", "DDP training on 8 A100 got 30% slower after upgrading PyTorch from "
     "2.0.1 to 2.2.0."),
    ("ticket.torch_releases", "nccl_regression", "Our FSDP job on 4 GPUs is much slower with torch 2.1 than with "
     "torch 1.13, same code and data."),
    ("ticket.torch_releases", "nccl_regression", "Multi-GPU data parallel training is slower on torch versions after "
     "2.1."),
])
def test_said_network_and_release_leads(rule_id, category, text):
    answer, findings = ticket(text)
    assert [f.category for f in fired(findings, rule_id)] == [category]
    assert answer.category == category and answer.confidence < 0.7  # words, not a measurement: never confident


@pytest.mark.parametrize("rule_id, text", [
    ("ticket.tcp_only", "Two nodes with InfiniBand, not just ethernet, and the all-reduce across them is slow."),
    ("ticket.tcp_only", "Two nodes connected by 100 Gb ethernet with RoCE, the all-reduce across them is slow."),
    ("ticket.tcp_only", "One server with 8 GPUs is slow; it has plain ethernet to the storage."),  # one node
    ("ticket.tcp_only", "Two nodes and the all-reduce across them is slow: would plain ethernet be the reason?"),
    ("ticket.torch_releases", "DDP training on 8 A100 got faster after upgrading PyTorch from 2.0.1 to 2.2.0."),
    ("ticket.torch_releases", "Single-GPU inference is slower with torch 2.3 than with torch 2.1."),  # not distributed
    ("ticket.torch_releases", "Upgrading torch from 2.1 to 2.3 fixed the slow DDP all-reduce we had."),  # the fix
    ("ticket.torch_releases", "DDP is slower with NCCL 2.20.5 (torch 2.3) than with NCCL 2.18.5 (torch 2.1)."),
    ("ticket.torch_releases", "Could the DDP slowdown come from moving from torch 2.1 to torch 2.3?"),  # a question
])
def test_no_network_or_release_lead_when_ruled_out_absent_or_asked(rule_id, text):
    _, findings = ticket(text)
    assert not fired(findings, rule_id)


# --------------------------------------------------------------------------- a hang across GPUs named without a count

@pytest.mark.parametrize("text", [
    "Multi-GPU training with DDP freezes at the first all-reduce on our workstation with RTX A6000 cards.",
    "Training on my two RTX A6000 GPUs hangs at the first all-reduce.",
])
def test_a_hang_across_gpus_said_without_a_count_suspects_p2p(tmp_path, text):
    answer, findings = issue_verdict(tmp_path, text)  # read as the ticket command reads it: the board resolved
    assert [f.category for f in fired(findings, "ticket.hang_on_pcie")] == ["p2p_disabled"]
    assert max(f.confidence for f in fired(findings, "ticket.hang_on_pcie")) <= 0.5  # a lead
    assert answer.category == "p2p_disabled" and answer.confidence < 0.7  # the verdict: never confident on it


@pytest.mark.parametrize("text", [
    "Training hangs when I use both GPUs, one GPU works fine.",
    "vLLM gets stuck at NCCL init with several GPUs on this box.",
])
def test_a_hang_across_unnamed_gpus_keeps_p2p_a_lead_that_asks_for_the_topology(tmp_path, text):
    """(review50) no board named: nothing says the GPUs reach each other over PCIe (tests/test_review50.py)."""
    answer, findings = issue_verdict(tmp_path, text)
    lead = [f for f in findings if f.rule == "ticket.hang_on_pcie"]
    assert [f.category for f in lead] == ["p2p_disabled"] and "topo -m" in lead[0].ask
    assert answer.category == "insufficient_data"


@pytest.mark.parametrize("text", [
    "Training hangs on a single GPU after 100 steps.",  # one GPU: no peer traffic
    "Multi-node training across two servers hangs at init.",  # between nodes: the network's
    "Training with both GPUs hangs; they are joined by an NVLink bridge.",  # over NVLink PCIe P2P is not the path
])
def test_no_pcie_p2p_suspect_for_one_gpu_other_nodes_or_nvlink(text):
    _, findings = ticket(text)
    assert not fired(findings, "ticket.hang_on_pcie")


# --------------------------------------------------------------------------- review of issue 11 k: misfires

UNFENCED_THEN_RELEASES = """# all_reduce slower after the NCCL upgrade

On 2 A100 SXM4 the all-reduce got slower. nvidia-smi nvlink -s:

GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1234)
	 Link 0: 25 GB/s
	 Link 1: <inactive>

With NCCL 2.18.5:

```
#       size         count      type   redop    root     time   algbw   busbw #wrong
   134217728      33554432     float     sum      -1    1200   111.8   111.8      0
# Avg bus bandwidth    : 111.8
```

With NCCL 2.20.5:

```
#       size         count      type   redop    root     time   algbw   busbw #wrong
   134217728      33554432     float     sum      -1    2400    55.9    55.9      0
# Avg bus bandwidth    : 55.9
```
"""


def test_release_blocks_still_pair_after_unfenced_tool_lines():
    """The tool lines taken out of the prose must not shift the prose lines against their sources."""
    from diagnose.evidence import Facts

    facts = Facts()
    facts.add(*issue_md.parse(UNFENCED_THEN_RELEASES, "issue.md"))
    (c,) = claims.release_blocks(facts)
    assert c.data["versions"] == ["2.18.5", "2.20.5"]
    (note,) = [n for n in facts.of(issue_md.Note) if n.kind == "description"]
    assert len(note.text.splitlines()) <= len(note.data["prose_sources"])
    assert note.data["output_lines"] == ["issue.md:6", "issue.md:7"]  # still output: no words-only weight


BARE_METAL_HANG = "4x RTX A6000 on bare metal, all_reduce_perf hangs. "


@pytest.mark.parametrize("text", [
    "IOMMU is off on this host.",  # "on" the preposition
    "I checked the IOMMU groups on the host.",
    "I checked ACS, it's disabled and P2P is enabled.",  # "disabled" between the word and a state
    'The docs say "if ACS is enabled, P2P traffic is redirected to the root complex".',  # a condition
    "When the IOMMU is enabled, P2P may be slow, so I checked: it is not.",
    "Is ACS enabled on these switches?",  # a question
])
def test_ordinary_words_near_acs_or_iommu_are_no_redirect(text):
    assert not [c for c in claims.find(said(BARE_METAL_HANG + text), "pcie_redirect") if not c.guess]
    _, findings = ticket(BARE_METAL_HANG + text)
    assert not fired(findings, "ticket.pcie_redirect")


@pytest.mark.parametrize("text", [
    "ACS was enabled on the PLX bridges.",
    "The IOMMU is on.",
    "We boot with amd_iommu=on.",
])
def test_acs_or_iommu_stated_as_on_is_still_a_redirect(text):
    _, findings = ticket(BARE_METAL_HANG + text)
    assert [f.category for f in fired(findings, "ticket.pcie_redirect")] == ["p2p_disabled"]


@pytest.mark.parametrize("words", [
    "Here is the output I got while running nvidia-smi.",  # the tool that printed it, not a load
    "I read that the link should go back to Gen 4 under load.",  # what should happen
    "Should I capture this while running the benchmark?",  # a question
    "If I read it during inference, would it show Gen 4?",  # a condition
])
def test_words_that_do_not_say_the_link_was_busy_leave_it_idle(tmp_path, words):
    _, findings = issue_verdict(tmp_path, QUERY + words + " Decode with TP=2 is slow.\n")
    assert [f.severity for f in findings if f.rule == "topology.pcie_link" and f.category != "insufficient_data"] \
        == ["ok"]


@pytest.mark.parametrize("text, confidence", [
    ("nvidia-smi -q under load: PCIe Generation Current : 1, Max : 4.", 0.65),
    ("nvidia-smi -q: PCIe Generation Current : 1, Max : 4, while running nvidia-smi.", 0.45),  # may be idle
])
def test_the_words_rule_reads_a_busy_link_as_the_topology_rule_does(text, confidence):
    _, findings = ticket("Decode with TP=2 is slow. " + text)
    assert [f.confidence for f in fired(findings, "ticket.pcie_words")] == [confidence]


@pytest.mark.parametrize("text", [
    "Training on my RTX 2080 GPU hangs after 100 steps.",
    "Inference on my 24GB GPU freezes.",
    "Training hangs on one GPU; I have not tried multiple GPUs yet.",
    "Training on the 2 TB disk hangs on my GPU.",
])
def test_one_gpu_is_not_several(text):
    _, findings = ticket(text)
    assert not fired(findings, "ticket.hang_on_pcie")


@pytest.mark.parametrize("text", [
    "DDP training on 8 A100 is very slow: each step takes 4 s. Our requirements pin torch >= 2.1.",
    "DDP training on 8 A100 is very slow: each step takes 4 s. requirements: torch>=2.1, numpy<2.",
    "DDP training on 8 A100 is very slow; we need torch > 2.0 for FSDP.",
])
def test_a_pytorch_version_floor_is_no_release_comparison(text):
    _, findings = ticket(text)
    assert not fired(findings, "ticket.torch_releases")


@pytest.mark.parametrize("text, ratio", [
    ("NCCL 2.20.5 uses 5% more memory than NCCL 2.18.5 and training is 3x slower", 3.0),
    ("the new release is 5% faster in latency and its busbw is 40% lower", 1.4),
    ("NCCL 2.20.5 uses 30% more memory than NCCL 2.18.5", None),  # memory, not speed
])
def test_the_stated_release_ratio_is_the_largest_speed_figure(text, ratio):
    assert claims.stated_release_ratio(text) == (pytest.approx(ratio) if ratio else None)


def test_a_memory_figure_does_not_make_a_slowdown_noise():
    answer, findings = ticket("On 8 A100 NCCL 2.20.5 uses 5% more memory than NCCL 2.18.5 and training is 3x "
                              "slower.")
    assert [f.severity for f in findings if f.rule == "nccl.regression"] == ["warning"]
    assert answer.category == "nccl_regression"


@pytest.mark.parametrize("text", [
    "Two nodes with 8 A100 each connected by HDR InfiniBand; multi-node training is slow. There are no IB errors "
    "in dmesg.",
    "Two nodes with 8 A100 each on InfiniBand; multi-node training is slow. We have no IB switch, the HCAs are "
    "cabled back to back.",
])
def test_no_ib_errors_on_an_infiniband_cluster_is_no_tcp_only(text):
    assert not claims.find(said(text), "tcp_only")
    _, findings = ticket(text)
    assert not fired(findings, "ticket.tcp_only")


def test_ethernet_only_stays_tcp_only_beside_an_rdma_word_said_absent():
    _, findings = ticket("Multi-node training on two servers is slow: only 25GbE between them, no RoCE, and the "
                         "InfiniBand cards are not installed.")
    assert [f.category for f in fired(findings, "ticket.tcp_only")] == ["socket_fallback"]


@pytest.mark.parametrize("text", [
    "GPU 0 has the lowest latency to all other GPUs in p2pBandwidthLatencyTest.",  # "low" of latency: the best
    "GPU 0 can only do P2P with all other GPUs through the host bridge, like every GPU here.",  # all GPUs alike
    "GPU 1 is slow to all other GPUs in p2pBandwidthLatencyTest, as is every GPU in this box.",
])
def test_one_gpu_said_alike_or_best_is_no_one_gpu_link(text):
    _, findings = ticket("Four A6000 in one workstation, tensor parallel is slow. " + text)
    assert not fired(findings, "ticket.one_gpu_link")
