"""Issue 11 (ruledout34): the reporter's word that a suspect works, or that they ruled it out, family by family.

Probe sentences and their results before and after: tests/data/ruledout34/NOTES.md. The words are read by
rules.claims (WORKING_WORDS and said_working for PCIe, /dev/shm, NUMA, NVLink and the network; p2p_ok for P2P's
ruling-out) and weighed only against a cause named from a prior: a riser or slot (ticket.pcie_words), NCCL's system
error inside a container or a container started with docker's default /dev/shm (ticket.system_error_in_container,
ticket.container_default_shm), GPUs on several NUMA nodes in an inventory (node.numa_placement).
Also two ruled-out statements that were read as the fault: "Same result with NCCL_P2P_DISABLE=1" (the setting's
effect, claims._effect) and "Downgrading NCCL did not help" (claims nccl_upgrade, negated).
"""

import shutil
from pathlib import Path

import pytest
from conftest import shared_path

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from rules import claims
from rules.engine import evaluate, ticket_verdict

DATA = Path(__file__).resolve().parent / "data"


def _with(tmp_path: Path, base: str, sentence: str):
    """A kept paste with one probe sentence put under its title."""
    title, _, rest = (DATA / base).read_text().partition("\n")
    path = tmp_path / "issue.md"
    path.write_text(f"{title}\n\n{sentence}\n{rest}")
    return read_bundle([path])


def _facts(tmp_path: Path, text: str):
    path = tmp_path / "issue.md"
    path.write_text("# Tensor parallel inference is slower than expected on my server\n\n"
                    "We run vLLM with tensor parallel size 2 and decode is slower than we expected.\n\n" + text + "\n")
    return read_bundle([path])


def _verdict(facts) -> str:
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts))).category


WORKING = [
    ("pcie", "lspci shows LnkSta: Speed 16GT/s (ok), Width x16 (ok) for every GPU."),
    ("pcie", "The PCIe link is running at Gen4 x16."),
    ("pcie", "PCIe bandwidth is not the problem."),
    ("pcie", "I already ruled out the PCIe link."),
    ("shm", "df -h /dev/shm shows 64G."),
    ("shm", "The container runs with --shm-size=16g."),
    ("shm", "I use --ipc=host."),
    ("shm", "/dev/shm is not the problem."),
    ("numa", "I already ruled out NUMA."),
    ("numa", "NUMA is not the problem."),
    ("numa", "NUMA binding makes no difference."),
    ("numa", "Both GPUs are on NUMA node 0."),
    ("numa", "The process is bound to the right NUMA node with numactl."),
    ("nvlink", "NVLink is active."),
    ("nvlink", "nvidia-smi nvlink -s shows Link 0: 25.781 GB/s on all links."),
    ("nvlink", "All NVLinks are up."),
    ("nvlink", "I already ruled out NVLink."),
    ("network", "IB works fine."),
    ("network", "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>"),
    ("network", "The NCCL log shows GPU Direct RDMA Enabled for HCA 0."),
    ("network", "InfiniBand is not the problem."),
]
NOT_WORKING = [
    # negations, questions, conditions, another host or time, part of the GPUs
    ("pcie", "The PCIe link is not running at x16."),
    ("pcie", "Is the PCIe link at x16?"),
    ("pcie", "The link was x16 before I moved the card."),
    ("pcie", "GPU0 is at x16 but GPU1 is at x4."),
    ("pcie", "I have not ruled out the PCIe link."),
    ("shm", "/dev/shm is only 64M."),
    ("shm", "Is /dev/shm too small?"),
    ("shm", "I have not checked /dev/shm."),
    ("shm", "/dev/shm was 64G before the container update."),
    ("numa", "NUMA is the problem."),
    ("numa", "Is NUMA the problem?"),
    ("numa", "If NUMA matters, should I bind with numactl?"),
    ("numa", "On the other server NUMA was fine."),
    ("numa", "I have not ruled out NUMA yet."),
    ("nvlink", "NVLink is not active."),
    ("nvlink", "Is NVLink active?"),
    ("nvlink", "If NVLink is active, the bandwidth should be higher."),
    ("nvlink", "NVLink was active before the driver update."),
    ("network", "IB does not work."),
    ("network", "Does IB work?"),
    ("network", "IB worked before the upgrade."),
    ("network", "RDMA works on the other cluster."),
]


@pytest.mark.parametrize("subject,text", WORKING)
def test_a_suspect_said_working_or_ruled_out_is_read(tmp_path, subject, text):
    assert claims.said_working(_facts(tmp_path, text), subject)


@pytest.mark.parametrize("subject,text", NOT_WORKING)
def test_a_negation_question_condition_or_other_host_is_not_read(tmp_path, subject, text):
    assert not claims.said_working(_facts(tmp_path, text), subject)


@pytest.mark.parametrize("text,seen", [
    ("It is not a P2P issue.", True),
    ("I already ruled out P2P.", True),
    ("I have not ruled out P2P yet.", False),
    ("Could it be a P2P issue?", False),
])
def test_p2p_ruled_out_after_the_verb_is_read(tmp_path, text, seen):
    assert bool(claims.p2p_check_said(_facts(tmp_path, text), "p2p_ok")) is seen


@pytest.mark.parametrize("base,subject", [
    ("ut27c/nccl1726.md", "shm"),  # "Shared memory (/dev/shm) is 20GB."
    ("ut14s/nccl2190.md", "shm"),  # "/dev/shm is fully provisioned with 252 GB of tmpfs space"
    ("ut12x/gptfast111.md", "nvlink"),  # "I have confirmed that NVLink is active"
])
def test_real_pastes_that_say_a_suspect_works(base, subject):
    assert claims.said_working(read_bundle([DATA / base]), subject)


@pytest.mark.parametrize("sentence", [
    "lspci shows LnkSta: Speed 16GT/s (ok), Width x16 (ok) for every GPU.",
    "The PCIe link is running at Gen4 x16.",
    "I already ruled out the PCIe link.",
])
def test_risers_alone_yield_to_a_full_width_link_said(tmp_path, sentence):
    """FastChat#176: 3 x 3060 on mining-rig risers, "not sure if that's causing a slow down"; the riser is a prior."""
    assert _verdict(read_bundle([DATA / "ut26a/fastchat176.md"])) == "pcie_link_degraded"
    assert _verdict(_with(tmp_path, "ut26a/fastchat176.md", sentence)) != "pcie_link_degraded"


def test_a_narrow_link_beside_a_full_one_keeps_the_riser_lead(tmp_path):
    assert _verdict(_with(tmp_path, "ut26a/fastchat176.md", "GPU0 is at x16 but GPU1 is at x4.")) \
        == "pcie_link_degraded"


@pytest.mark.parametrize("sentence", ["df -h /dev/shm shows 64G.", "I use --ipc=host.", "/dev/shm is not the problem."])
def test_a_container_system_error_yields_to_a_large_shm_said(tmp_path, sentence):
    """vllm#19613: NCCL_ERROR_SYSTEM_ERROR in the vLLM docker image, the /dev/shm lead a prior."""
    assert _verdict(read_bundle([DATA / "decided31/vllm19613.md"])) == "shm_too_small"
    assert _verdict(_with(tmp_path, "decided31/vllm19613.md", sentence)) != "shm_too_small"


def test_a_small_shm_said_keeps_the_container_lead(tmp_path):
    assert _verdict(_with(tmp_path, "decided31/vllm19613.md", "/dev/shm is only 64M.")) == "shm_too_small"


@pytest.mark.parametrize("sentence", ["It is not a P2P issue.", "I already ruled out P2P."])
def test_a_geforce_prior_yields_to_p2p_ruled_out(tmp_path, sentence):
    """sglang#2961: 4 x 2080 Ti, 20 s prefill; the GeForce P2P prior alone named p2p_disabled."""
    assert _verdict(_with(tmp_path, "physics31/sglang2961.md", sentence)) != "p2p_disabled"


def test_the_same_result_with_p2p_off_is_no_help():
    assert claims._effect("Same result with NCCL_P2P_DISABLE=1.") == "no_help"
    assert claims._effect("With NCCL_P2P_DISABLE=1 it works.") == "fixes"


@pytest.mark.parametrize("text,negated", [
    ("Downgrading NCCL did not help.", True),
    ("The NCCL downgrade made no difference.", True),
    ("Downgrading NCCL to 2.18 fixed it.", False),
    ("It got slower after upgrading NCCL from 2.18 to 2.21.", False),
])
def test_an_nccl_downgrade_without_effect_rules_the_release_out(text, negated):
    c = claims._first("nccl_upgrade", claims.PATTERNS["nccl_upgrade"], text)
    assert c is not None and c.negated is negated


def test_numa_ruled_out_steps_back_the_inventory_only(tmp_path):
    """Shared ticket 080 (DGX H100, two NUMA regions, workers launched without binding): the GPUs' placement alone
    (node.numa_placement, an inventory line) yields to "I already ruled out NUMA"; the reporter's own word that the
    workers are unbound keeps host.numa_affinity."""
    src = shared_path("tickets", "080-vllm-13855-dgx-h100-pin-vllm-to-numa-region")
    found = {}
    for extra in ("", " I already ruled out NUMA."):
        dst = tmp_path / f"t{len(found)}"
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("expected.toml"))
        toml = dst / "ticket.toml"
        toml.write_text(toml.read_text().replace("costing performance?", "costing performance?" + extra))
        found[extra] = {f.rule for f in evaluate(read_bundle([dst]))}
    assert {"node.numa_placement", "host.numa_affinity"} <= found[""]
    assert "node.numa_placement" not in found[" I already ruled out NUMA."]
    assert "host.numa_affinity" in found[" I already ruled out NUMA."]
