"""Review of the transport ticket words (issue 11 o): each defect's sentence as the reviewer ran it, two
paraphrases and a negation. The sentences are written for these tests, not taken from any case."""

import pytest

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note
from rules import claims
from rules.common import has_nvlink
from rules.engine import evaluate, ticket_verdict


def facts_of(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def verdict(tmp_path, text: str):
    """The verdict on a ticket whose issue.md holds `text`, read as the ticket command reads it (figures and all)."""
    (tmp_path / "issue.md").write_text("# Question\n\n" + text + "\n")
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


def fired(findings, rule_id):
    return [f for f in findings if f.rule == rule_id and f.severity != "ok"]


# 1. Between nodes, the NIC floor is divided by the ports only where fewer GPUs per node than ports run.
@pytest.mark.parametrize("text", [
    "Two DGX A100 nodes, 8 GPUs each. all_reduce_perf across all 16 GPUs gives busbw 15 GB/s. Is that normal?",
    "We run nccl-tests all_reduce_perf on 2 DGX H100 nodes with all 8 GPUs per node: busbw 30 GB/s.",
    "Cluster: two nodes, 8 GPUs per node, 8 x 200 Gb/s NICs each. all_reduce_perf over 16 ranks: busbw 12 GB/s.",
])
def test_a_full_node_busbw_far_under_its_nics_is_a_network_fault(tmp_path, text):
    _, findings = verdict(tmp_path, text)
    got = [f for f in findings if f.rule == "nccl.busbw"]
    assert got and got[0].severity == "warning" and got[0].category in ("socket_fallback", "gdr_disabled")


def test_one_gpu_per_node_uses_one_port_so_its_busbw_is_no_fault(tmp_path):
    _, findings = verdict(tmp_path, "Two DGX A100 nodes. all_reduce_perf with one GPU per node gives busbw 15 GB/s.")
    assert not fired(findings, "nccl.busbw") or fired(findings, "nccl.busbw")[0].severity == "info"


# 2. A question after an NVLink statement asks about the speed, not about the link.
@pytest.mark.parametrize("text", [
    "Our two 3090s are joined by an NVLink bridge, so why is TP=2 this slow?",
    "The pair of A6000s has an NVLink bridge fitted; what else could make the all-reduce slow?",
    "We connected both cards with NVLink, why does decode not speed up?",
])
def test_nvlink_stated_before_a_question_is_nvlink(text):
    assert has_nvlink(facts_of(text))


@pytest.mark.parametrize("text", [
    "We have two 3090s; would an NVLink bridge make TP=2 faster?",
    "Does TP=2 on two 4090s need NVLink?",
])
def test_nvlink_asked_about_is_no_nvlink(text):
    assert not has_nvlink(facts_of(text))


# 3. The bare ensure_divisibility message goes through the same negation and past-tense checks as any claim.
@pytest.mark.parametrize("text", [
    "At tensor_parallel_size=4 we no longer get 'AssertionError: 25 is not divisible by 4' after upgrading; "
    "decode is slow now.",
    "With --tp 2 the loader doesn't throw 'AssertionError: 14 is not divisible by 2' anymore since the fix, but "
    "throughput is low.",
    "tensor_parallel_size=8: it used to raise 'AssertionError: 52 is not divisible by 8'; now it loads and is slow.",
])
def test_a_divisibility_error_that_is_gone_is_no_tp_error(tmp_path, text):
    _, findings = verdict(tmp_path, text)
    assert not fired(findings, "ticket.tp_size_error")


def test_a_divisibility_error_seen_at_the_tp_size_is_the_tp_error(tmp_path):
    answer, findings = verdict(tmp_path, "With --tp 2 vLLM throws 'AssertionError: 14 is not divisible by 2' at load.")
    assert fired(findings, "ticket.tp_size_error") and answer.category == "tp_not_dividing_heads"


# 4. A node count beside "model parallel" is no TP size; the size forms are.
@pytest.mark.parametrize("text", [
    "We use model parallel on 2 nodes. The loader fails: AssertionError: 30 is not divisible by 2",
    "Model-parallel across 2 machines; startup dies with AssertionError: 18 is not divisible by 2",
    "model parallel over 4 servers, and we see 'AssertionError: 30 is not divisible by 4' at init.",
])
def test_a_node_count_beside_model_parallel_is_no_tp_size(tmp_path, text):
    assert not [c for c in claims.claims(facts_of(text)) if c.kind == "tp_size_named"]
    assert not fired(verdict(tmp_path, text)[1], "ticket.tp_size_error")


@pytest.mark.parametrize("text, size", [
    ("We call init_inference(model, mp_size=4) and loading fails with AssertionError: 30 is not divisible by 4.", "4"),
    ("model_parallel_size: 2 in the config, and it fails with AssertionError: 15 is not divisible by 2", "2"),
])
def test_the_size_forms_of_model_parallel_are_tp_sizes(tmp_path, text, size):
    named = [c for c in claims.claims(facts_of(text)) if c.kind == "tp_size_named"]
    assert named and named[0].data["groups"] == [size]
    assert fired(verdict(tmp_path, text)[1], "ticket.tp_size_error")


# 5. The reporter's own before/after figures are no hearsay, whatever the question beside them.
@pytest.mark.parametrize("text", [
    "Is NCCL 2.21 slower than 2.18 for others too? Our all_reduce busbw dropped from 190 GB/s to 95 GB/s after "
    "the upgrade.",
    "Do other people see NCCL 2.20 slower than 2.19? On our node busbw went from 180 GB/s to 90 GB/s.",
    "Are others seeing NCCL 2.21 slower than 2.18? Here busbw dropped from 170 GB/s to 80 GB/s after upgrading.",
])
def test_own_figures_beside_a_question_are_a_regression(tmp_path, text):
    answer, findings = verdict(tmp_path, text)
    assert fired(findings, "nccl.regression") and answer.category == "nccl_regression"


def test_a_regression_only_heard_of_stays_hearsay(tmp_path):
    _, findings = verdict(tmp_path, "I read that NCCL 2.21 is slower than 2.18 for all_reduce, is that true?")
    assert not fired(findings, "nccl.regression")


# 7. "not running any faster" is about speed, not an idle GPU.
@pytest.mark.parametrize("text", [
    "nvidia-smi -q shows PCIe Generation Max 4 Current 1 on GPU1; the decode is not running any faster with TP=2.",
    "GPU1 reads pcie.link.gen.current 1 against max 4; TP=2 is not running faster than one card.",
    "PCIe Generation Max 4 Current 2 for GPU0, and the model is not running much faster on two GPUs.",
])
def test_not_running_faster_is_no_idle_reading(tmp_path, text):
    assert not claims.said_idle(text)
    _, findings = verdict(tmp_path, text)
    assert not [f for f in findings if f.rule == "ticket.pcie_words" and f.severity == "ok"]


@pytest.mark.parametrize("text", [
    "At idle nvidia-smi -q shows PCIe Generation Max 4 Current 1.",
    "Read while nothing is running: pcie.link.gen.current 1, max 4.",
    "The cards were idling when I ran nvidia-smi -q.",
])
def test_idle_words_are_an_idle_reading(text):
    assert claims.said_idle(text)


def test_idle_said_not_is_no_idle_reading():
    assert not claims.said_idle("This was not at idle: GPU1 shows PCIe Generation Max 4 Current 1.")


# 8. nvidia-smi -q's block spans lines, and the query fields come in either order.
_Q_BLOCK = """        GPU Link Info
            PCIe Generation
                Max                               : 4
                Current                           : 1
                Device Current                    : 1
                Device Max                        : 4
                Host Max                          : 4
            Link Width
                Max                               : 16x
                Current                           : 16x
"""


@pytest.mark.parametrize("text", [
    "nvidia-smi -q on GPU 1 during the run:\n" + _Q_BLOCK,
    "$ nvidia-smi --query-gpu=pcie.link.gen.max,pcie.link.gen.current --format=csv\n"
    "pcie.link.gen.max, pcie.link.gen.current\n4, 1\n",
    "nvidia-smi --query-gpu=pcie.link.gen.current,pcie.link.gen.max --format=csv prints 2, 4 on GPU 3.",
])
def test_a_pcie_generation_below_max_in_tool_layouts_is_read(text):
    assert [c for c in claims.claims(facts_of(text)) if c.kind == "pcie_degraded"]


def test_a_pcie_generation_at_max_is_no_degraded_link():
    text = "nvidia-smi -q on GPU 1 during the run:\n" + _Q_BLOCK.replace(": 1\n", ": 4\n")
    assert not [c for c in claims.claims(facts_of(text)) if c.kind == "pcie_degraded"]


# 9. A bridge whose PHB is gone is a fix confirmed, not a link down.
@pytest.mark.parametrize("text", [
    "The NVLink bridge is installed, but topo -m no longer shows PHB: after reseating it shows NV4. TP=2 decode is "
    "slow.",
    "NVLink bridge fitted, but topo -m does not show SYS anymore; TP=2 is still slow.",
    "The NVLink bridge is attached but topo now reports NV4 instead of PHB between GPU0 and GPU1; decode is slow.",
])
def test_a_bridge_whose_phb_is_gone_is_no_link_down(tmp_path, text):
    _, findings = verdict(tmp_path, text)
    assert not fired(findings, "ticket.link_down")


def test_a_bridge_installed_but_topo_showing_phb_is_a_link_down(tmp_path):
    said = "The NVLink bridge is installed, but topo -m shows PHB between GPU0 and GPU1. TP=2 is slow."
    _, findings = verdict(tmp_path, said)
    assert fired(findings, "ticket.link_down")


# 6. The P2P switch as the workaround is read from the setting's own effect, in its own clause; one said taken off
# is not what makes the job run.
@pytest.mark.parametrize("text", [
    "TP=2 on our two L40S freezes at the first all-reduce, even with NCCL_P2P_DISABLE=1 it still hangs; it only "
    "works with NCCL_P2P_DISABLE=1 removed and ACS off.",
    "The 4-rank all_reduce test on A10s hangs with NCCL_P2P_DISABLE=1 too; it runs fine once NCCL_P2P_DISABLE=1 is "
    "unset and IOMMU is off.",
    "vLLM crashes at startup on two A4000s; setting NCCL_P2P_LEVEL=LOC did not help; it succeeds with "
    "NCCL_P2P_LEVEL=LOC dropped and the BIOS updated.",
])
def test_a_p2p_switch_that_does_not_fix_the_failure_is_no_workaround(tmp_path, text):
    _, findings = verdict(tmp_path, text)
    assert not [f for f in fired(findings, "topology.p2p_forced_off")
                if f.title.startswith("The GPUs fail over PCIe peer-to-peer")]


@pytest.mark.parametrize("text", [
    "TP=2 on two A10s hangs at the first all-reduce; it only runs with NCCL_P2P_DISABLE=1.",
    "Our 4-rank all_reduce test on A4000s freezes unless NCCL_P2P_LEVEL=LOC is exported.",
])
def test_a_p2p_switch_that_fixes_the_failure_is_the_workaround(tmp_path, text):
    _, findings = verdict(tmp_path, text)
    (f,) = fired(findings, "topology.p2p_forced_off")
    assert f.title.startswith("The GPUs fail over PCIe peer-to-peer")


# 12. GPUDirect RDMA off in any spelling is gdr_off, not RDMA (and so sockets) off.
@pytest.mark.parametrize("text", [
    "GPUDirect-RDMA is disabled on both nodes and training is slow.",
    "GPU-Direct RDMA was turned off, the all-reduce is slow.",
    "GPU Direct RDMA got switched off after the driver update.",
])
def test_gpudirect_rdma_off_is_no_rdma_off(text):
    assert not [c for c in claims.claims(facts_of(text)) if c.kind == "rdma_off"]


def test_rdma_itself_off_is_rdma_off():
    assert [c for c in claims.claims(facts_of("RDMA is disabled between the nodes, so the job is slow."))
            if c.kind == "rdma_off"]


# 11. One reading of the TP sizes named, for every rule.
@pytest.mark.parametrize("text, sizes", [
    ("We serve it with tensor_parallel_size=6 on six L40S.", [6]),
    ("Should I use TP 3 or TP 6 for this model?", [3]),
    ("DeepSpeed init_inference with mp_size=4 on four A10s.", [4]),
    ("We don't use TP=6 any more; the job runs on one GPU.", []),
])
def test_tp_sizes_are_read_once_for_every_rule(text, sizes):
    from rules.common import tp_sizes

    assert [t for t, _ in tp_sizes(facts_of(text))] == sizes


# 10. WSL 2 read from the virtualized claim, "from WSL2" by itself no setup left behind.
@pytest.mark.parametrize("text", [
    "I launch vLLM from WSL2 on Windows 11 with two 4090s and --tensor-parallel-size 2; it hangs at startup.",
    "Running from a WSL 2 shell, two RTX 3090s with tensor_parallel_size=2 hang on the first all-reduce.",
    "Inside the Windows Subsystem for Linux our two A4000s with --tensor-parallel-size 2 crash at load.",
])
def test_a_multi_gpu_job_under_wsl2_is_virtualized(tmp_path, text):
    answer, _ = verdict(tmp_path, text)
    assert answer.category == "virtualization_no_p2p"


@pytest.mark.parametrize("text", [
    "We moved from WSL2 to native Ubuntu 22.04; vLLM with --tensor-parallel-size 2 on two 4090s still hangs.",
    "After we migrated away from the WSL 2 setup to bare Ubuntu, TP=2 on two 3090s hangs at startup.",
])
def test_wsl2_left_behind_is_no_vm(tmp_path, text):
    answer, _ = verdict(tmp_path, text)
    assert answer.category != "virtualization_no_p2p"
