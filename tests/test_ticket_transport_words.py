"""Transport and topology words an expert reads in a ticket (issue 11 o): NVLink said absent or only asked
about is no NVLink, a topology matrix outranks the prose, and the bare "N is not divisible by M" of
ensure_divisibility (vLLM, SGLang, Megatron-LM) is the TP error where M is the ticket's TP size. Paraphrases
and negations here are written for these tests, not taken from any case."""

import pytest

from diagnose.evidence import Facts, Note, TopologyPath
from rules.common import has_nvlink
from rules.engine import evaluate, ticket_verdict


def facts_of(text: str, *records) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    for r in records:
        facts.add(r)
    return facts


def verdict(text: str, *records):
    facts = facts_of(text, *records)
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


def fired(findings, rule_id):
    return [f for f in findings if f.rule == rule_id and f.severity != "ok"]


@pytest.mark.parametrize("text", [
    "Two RTX A6000 in one workstation. NVLink: None. PCIe Gen4 x16 each.",
    "Setup: 4x L40S, no NVLink between them, all on one socket.",
    "These are PCIe cards without an NVLink bridge.",
    "The server is a non-NVLink A100 PCIe box.",
    "Our chassis lacks NVLink, so everything goes over PCIe.",
    "Do I need NVLink for tensor parallel on two cards?",
    "NVLink bridge: N/A",
    "It is an NVLink-less PCIe build.",
])
def test_nvlink_said_absent_or_asked_is_no_nvlink(text):
    assert not has_nvlink(facts_of(text))


@pytest.mark.parametrize("text", [
    "Two RTX 3090s joined by an NVLink bridge, TP=2 is slow.",
    "The A100s talk over NVLink and the all-reduce still stalls.",
    "NVLink bridge: installed, nvidia-smi nvlink -s shows 4 links per GPU.",
])
def test_nvlink_said_present_is_nvlink(text):
    assert has_nvlink(facts_of(text))


def test_a_topology_matrix_without_nv_paths_outranks_the_prose():
    said = "We bought the NVLink bridge for these two cards."
    pcie = TopologyPath("topo.txt:3", "GPU0", "GPU1", "PHB")
    assert has_nvlink(facts_of(said))
    assert not has_nvlink(facts_of(said, pcie))
    assert has_nvlink(facts_of(said, TopologyPath("topo.txt:3", "GPU0", "GPU1", "NV4", nvlinks=4)))


def test_p2p_off_as_the_workaround_on_pcie_cards_is_p2p_disabled_not_shm_fallback():
    answer, findings = verdict(
        "SGLang --tp 2 on a pair of L40 boards freezes in its first all-reduce; it runs fine once we export "
        "NCCL_P2P_DISABLE=1.\n\nInterconnect: PCIe only, no NVLink bridge.\nnvidia-smi topo -m: NODE between GPU0 and "
        "GPU1.\n")
    assert [f.category for f in fired(findings, "topology.p2p_forced_off")] == ["p2p_disabled"]
    assert answer.category == "p2p_disabled"


@pytest.mark.parametrize("text", [
    "Running with --tensor-parallel-size 4 stops at load: AssertionError: 34 is not divisible by 4",
    "With tp_size=8 the server exits: ValueError: 28 is not divisible by 8",
    "DeepSpeed inference with mp_size 4 crashes in the attention init with '2 is not divisible by 4'.",
    "sglang --tp 6 fails during model init:\n```\nAssertionError: 16 is not divisible by 6\n```",
])
def test_the_bare_divisibility_error_at_the_tp_size_is_the_tp_error(text):
    answer, findings = verdict(text)
    assert fired(findings, "ticket.tp_size_error")
    assert answer.category == "tp_not_dividing_heads"


@pytest.mark.parametrize("text", [
    # another divisor than the TP size: a batch or block size, not the split
    "With --tensor-parallel-size 2 the loader says AssertionError: 30 is not divisible by 4",
    # no TP size named at all
    "The script fails with AssertionError: 34 is not divisible by 4",
    # a question about it, not the error seen
    "Will I hit '40 is not divisible by 3' if I set --tensor-parallel-size 3?",
    # a figure after the divisor is another number ("by 4.5 GB")
    "At TP 4 the cache of 12 is not divisible by 4.5 GB chunks",
])
def test_the_bare_divisibility_error_elsewhere_is_no_tp_error(text):
    _, findings = verdict(text)
    assert not fired(findings, "ticket.tp_size_error")


def issue_verdict(tmp_path, text: str):
    """The verdict on a ticket whose issue.md holds `text`, read as the ticket command reads it (figures and all)."""
    from diagnose.bundle import read_bundle

    (tmp_path / "issue.md").write_text("# Question\n\n" + text + "\n")
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


@pytest.mark.parametrize("text", [
    "NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' on both nodes and training is slow.",
    "Between the two nodes GPUDirect RDMA is disabled, the all-reduce is slow.",
])
def test_gpudirect_rdma_off_is_no_socket_fallback(text):
    _, findings = verdict("Two nodes with 8 A100 each over HDR InfiniBand. " + text)
    assert not fired(findings, "ticket.net_socket")
    assert fired(findings, "ticket.gdr_off")


def test_rdma_itself_off_between_nodes_still_reads_as_sockets():
    _, findings = verdict("Two nodes with 8 A100 each; RDMA is disabled on the cluster and the all-reduce is slow.")
    assert fired(findings, "ticket.net_socket")


@pytest.mark.parametrize("text", [
    "vLLM with --tensor-parallel-size 2 on two RTX 3090 hangs at startup. Python platform: "
    "Linux-5.15.133.1-microsoft-standard-WSL2-x86_64-with-glibc2.35",
    "I run vLLM in Docker Desktop on Windows 11 with two 4090s; TP=2 never finishes loading, TP=1 works.",
    "Under WSL2 on my gaming PC, two 3090s with tensor parallel 2 crash at the first all-reduce.",
    "In the Windows Subsystem for Linux, vLLM with --tensor-parallel-size 2 is stuck after NCCL init.",
])
def test_a_multi_gpu_failure_under_wsl2_is_virtualization(text):
    answer, findings = verdict(text)
    assert fired(findings, "topology.virtualization_no_p2p")
    assert answer.category == "virtualization_no_p2p"


@pytest.mark.parametrize("text", [
    # one GPU under WSL2: nothing between GPUs to break
    "Under WSL2 a single 4090 decodes at 20 tok/s, slower than I hoped.",
    # WSL2 left behind
    "I moved from WSL2 to native Ubuntu; vLLM TP=2 on two 3090 now hangs at startup.",
    # WSL2 ruled out
    "Not WSL, a native Ubuntu 22.04 install: vLLM TP=2 on two 3090 hangs at startup.",
])
def test_wsl2_without_a_multi_gpu_job_there_is_no_virtualization(text):
    _, findings = verdict(text)
    assert not fired(findings, "topology.virtualization_no_p2p")


def test_a_low_busbw_inside_a_guest_is_a_virtual_symptom(tmp_path):
    answer, findings = issue_verdict(tmp_path, "Two A100 passed through to a Proxmox VM. all_reduce_perf gives "
                                               "busbw 4 GB/s between them.")
    assert fired(findings, "topology.virtualization_no_p2p")
    assert answer.category == "virtualization_no_p2p"


def test_a_busbw_near_pcie_inside_a_guest_is_no_symptom(tmp_path):
    _, findings = issue_verdict(tmp_path, "Two A100 passed through to a Proxmox VM. all_reduce_perf gives busbw "
                                          "21 GB/s between them.")
    assert not fired(findings, "topology.virtualization_no_p2p")


@pytest.mark.parametrize("text,category", [
    ("Two nodes with 100Gbps InfiniBand and 8 GPUs each; all_reduce_perf busbw is 3 GB/s. Is that normal?",
     "socket_fallback"),
    ("Two nodes, each with 8x 200Gb/s HDR NICs and 8 H100. all_reduce_perf across both nodes gives busbw 8 GB/s.",
     "socket_fallback"),
    ("Two nodes on 200Gb/s HDR, NCCL INFO Using network IB on both; all_reduce_perf busbw is 5 GB/s.",
     "gdr_disabled"),
])
def test_an_internode_busbw_under_half_of_a_nic_is_not_physics(tmp_path, text, category):
    answer, findings = issue_verdict(tmp_path, text)
    assert [f.category for f in fired(findings, "nccl.busbw")] == [category]
    assert answer.category != "expected_physics"


@pytest.mark.parametrize("text", [
    "Two nodes with 100Gbps InfiniBand and 8 GPUs each; all_reduce_perf busbw is 11 GB/s. Is that normal?",
    # one GPU per node of two 8-NIC systems uses one port: 20 GB/s is most of it
    "Two DGX A100 nodes. all_reduce_perf with one GPU per node gives busbw 20 GB/s. Is that normal?",
])
def test_an_internode_busbw_a_nic_carries_is_no_fault(tmp_path, text):
    answer, findings = issue_verdict(tmp_path, text)
    assert not [f for f in fired(findings, "nccl.busbw") if f.severity in ("warning", "critical")]
    assert answer.category in ("healthy", "expected_physics", "insufficient_data")


@pytest.mark.parametrize("text", [
    "nvidia-smi topo -m shows PHB between GPU0 and GPU1 even though the NVLink bridge is installed on the two 3090s.",
    "The NVLink bridge is fitted, but topo -m still reports SYS between the pair.",
    "Our topo -m output says NODE for GPU0-GPU1 although an NVLink bridge is attached.",
])
def test_a_pcie_path_in_topo_against_a_fitted_bridge_is_a_link_down(text):
    answer, findings = verdict(text + " TP=2 decode is slow.")
    assert fired(findings, "ticket.link_down")
    assert answer.category == "nvlink_down"


@pytest.mark.parametrize("text", [
    # the bridge's pair shows NV#: linked
    "nvidia-smi topo -m shows NV4 between GPU0 and GPU1, the NVLink bridge is installed.",
    # no bridge said fitted
    "nvidia-smi topo -m shows PHB between GPU0 and GPU1; we have no NVLink bridge.",
    # asked, not seen
    "Would topo -m show PHB even though the NVLink bridge is installed?",
])
def test_topo_paths_without_a_fitted_bridge_against_them_are_no_link_down(text):
    _, findings = verdict(text)
    assert not fired(findings, "ticket.link_down")


@pytest.mark.parametrize("text", [
    "The NCCL log shows channels via NET/IB/0 but never GDRDMA between our 2 nodes; all-reduce is slow.",
    "Across the two nodes the channel lines have no GDRDMA, only NET/IB/1, and training is slow.",
    "Between the nodes NET/IB is used without /GDRDMA in any channel line; throughput is low.",
])
def test_net_ib_channels_without_gdrdma_are_gdr_off(text):
    answer, findings = verdict(text)
    assert fired(findings, "ticket.gdr_off")
    assert answer.category == "gdr_disabled"


def test_channels_with_gdrdma_are_no_gdr_off():
    _, findings = verdict("Between our 2 nodes every channel goes via NET/IB/0/GDRDMA; the all-reduce is slow.")
    assert not fired(findings, "ticket.gdr_off")


def test_nccl_lines_pasted_without_a_fence_leave_the_prose_read(tmp_path):
    """An issue.md whose NCCL INFO lines sit between its sentences unfenced is still the reporter's words: both the
    log lines and the prose around them are read."""
    answer, findings = issue_verdict(
        tmp_path, "Two nodes with 8 H100 each, vLLM TP=8 PP=2. The log says:\n"
        "NCCL INFO NET/IB : No device found.\nNCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>\n"
        "Decode is much slower than on one node.")
    assert answer.category == "socket_fallback"


def test_log_lines_pasted_in_prose_do_not_outvote_its_sentences():
    from diagnose.artifacts import issue_md

    log = "\n".join(f"host:12:34 [{r}] NCCL INFO Channel 00/0 : {r}[{r}] -> {r + 1}[{r + 1}] via P2P/IPC"
                    for r in range(6))
    said = "The NCCL log of the slow run says this:\n" + log + "\nDecode stays slow on both of the cards.\n"
    assert issue_md.detect_named(said, "notes.txt") == 0.9
    # the log alone is no prose
    assert issue_md.detect_named(log + "\nhost:12:34 [0] NCCL INFO Connected all rings\n", "nccl.txt") == 0.0


@pytest.mark.parametrize("text", [
    "Under load nvidia-smi -q reports PCIe Generation Max 4 Current 1 for GPU 1; TP=2 decode is slow.",
    "While vLLM serves, nvidia-smi shows pcie.link.gen.current 2 against max 4 on GPU 1; decode is slow.",
    "During the benchmark run GPU 3 reads PCIe Generation Max: 5 Current: 3, the others 5; all-reduce is slow.",
])
def test_a_pcie_generation_below_max_under_load_is_a_degraded_link(text):
    answer, findings = verdict(text)
    assert fired(findings, "ticket.pcie_words")
    assert answer.category == "pcie_link_degraded"


@pytest.mark.parametrize("text", [
    "At idle nvidia-smi shows pcie.link.gen.current 1 against max 4 on both cards. Is that a problem? Decode is slow.",
    "With the GPUs idle, nvidia-smi -q reports PCIe Generation Max 4 Current 1. Inference is slow.",
])
def test_a_low_pcie_generation_read_at_idle_is_power_saving(text):
    answer, findings = verdict(text)
    assert not fired(findings, "ticket.pcie_words")
    assert answer.category != "pcie_link_degraded"


def test_generation_at_its_max_is_no_degraded_link():
    _, findings = verdict("Under load nvidia-smi -q reports PCIe Generation Max 4 Current 4 on every GPU; TP=4 slow.")
    assert not fired(findings, "ticket.pcie_words")


@pytest.mark.parametrize("text,busy", [
    ("While vLLM serves the benchmark, lspci shows LnkSta 2.5GT/s.", True),
    ("During all_reduce_perf runs the link reads Gen1.", True),
    ("While the server is idle, lspci shows LnkSta 2.5GT/s.", False),
    ("Should I read it while vLLM serves?", False),
])
def test_a_reading_taken_while_an_engine_works_is_under_load(text, busy):
    from rules import claims

    assert bool(claims.said_busy(text)) is busy


@pytest.mark.parametrize("text", [
    "text-generation-launcher --num-shard 2 fails: `num_heads` must be divisible by `num_shards` "
    "(got `num_heads`: 25 and `num_shards`: 2)",
    "lmdeploy serve with --tp 3 stops on assert head_num % tp == 0",
])
def test_other_engines_wordings_of_the_tp_refusal_are_the_tp_error(text):
    answer, findings = verdict(text)
    assert fired(findings, "ticket.tp_size_error")
    assert answer.category == "tp_not_dividing_heads"


@pytest.mark.parametrize("text", [
    "Is NCCL 2.20 slower than 2.18? Someone on a forum said so; our throughput seems fine.",
    "I read that NCCL 2.19.3 regressed against 2.18.5 on H100 - is that true? Our cluster looks fine.",
])
def test_a_release_regression_only_heard_of_is_none_here(text):
    answer, findings = verdict(text)
    assert not fired(findings, "nccl.regression")
    assert answer.category != "nccl_regression"


def test_a_release_regression_measured_here_stays_one():
    answer, findings = verdict("Since we upgraded from NCCL 2.18.6 to 2.21.5 (same driver, same machines), the 2-node "
                               "all_reduce busbw went from 190 GB/s to 95 GB/s.")
    assert fired(findings, "nccl.regression")
    assert answer.category == "nccl_regression"


@pytest.mark.parametrize("text", [
    "TP=2 on two L40S hangs at the first all-reduce unless NCCL_P2P_DISABLE=1 is set.",
    "The two-rank all_reduce test freezes; it works fine with NCCL_P2P_DISABLE=1.",
    "vLLM crashes with an NCCL error at startup on our 4 PCIe A6000s, solved by NCCL_P2P_LEVEL=LOC.",
])
def test_p2p_off_as_the_workaround_for_a_failure_says_the_p2p_path_fails(text):
    answer, findings = verdict(text)
    (f,) = fired(findings, "topology.p2p_forced_off")
    assert f.category == "p2p_disabled" and f.title.startswith("The GPUs fail over PCIe peer-to-peer")
    assert answer.category == "p2p_disabled"


@pytest.mark.parametrize("text", [
    # set, and the job is slow: the setting is the suspect
    "We launch with NCCL_P2P_DISABLE=1 on two L40S and decode is slow.",
    # a failure, but the setting not named as what makes it run
    "TP=2 on two L40S hangs at start; our launch script exports NCCL_P2P_DISABLE=1.",
])
def test_p2p_off_without_it_fixing_a_failure_is_the_setting_itself(text):
    _, findings = verdict(text)
    (f,) = fired(findings, "topology.p2p_forced_off")
    assert not f.title.startswith("The GPUs fail over PCIe peer-to-peer")
