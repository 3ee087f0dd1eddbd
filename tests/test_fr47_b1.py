"""fr47 b1 (session s47, the 41st session's final read A, items 3 and 4): an NCCL or PyTorch release said to fix
something counts against the blocked peer path (audit47b, rules.ticket_rules._software_release_change) only where the
fix names the hang and the hang stayed cured (claims._release_cured_failure), and not where ACS or the IOMMU turned
off cured it as well. The sentences here are written for this test (marked "probe"), not real tickets.
"""

import json

import pytest
from conftest import report_json

# probe: a hang between PCIe GPUs (p2p_disabled 0.69 on main a40c2d75 and here)
BASE = ("Our vLLM TP=4 on 4x A100 PCIe (GPUs connected via PCIe, nvidia-smi topo -m shows PHB between all GPUs) "
        "hangs at the first allreduce every time. ")


def probe(tmp_path, text: str) -> dict:
    (tmp_path / "issue.md").write_text(BASE + text + "\n")
    return report_json("ticket", str(tmp_path / "issue.md"))


def pcie_finding(report: dict) -> dict:
    (f,) = [f for f in report["findings"] if f["rule"] == "ticket.hang_on_pcie"]
    return f


# ------------------------------------------------------------------ item 3: the fix's object is not the hang

@pytest.mark.parametrize("sentence", [
    # probe (fr47a/29): the release fixed another issue, the hang remains
    "Upgrading NCCL to 2.21.5 fixed a different issue (the IB warning spam), but the hang remains.",
    # probe (fr47a/30): the release fixed an import error, the next sentence says it still hangs
    "Upgrading PyTorch to 2.3 fixed the import error. It still hangs at the first allreduce.",
    "Upgrading PyTorch to 2.3 fixed the import error.",                   # probe: something else fixed, alone
    "Updating NCCL fixed the warnings, but the hang persists.",           # probe
    "Upgrading NCCL fixed another bug we had.",                           # probe
])
def test_a_release_that_fixed_something_else_leaves_the_peer_path_suspect(tmp_path, sentence):
    report = probe(tmp_path, sentence)
    assert report["verdict"]["category"] == "p2p_disabled", json.dumps(report["verdict"])
    assert pcie_finding(report)["confidence"] >= 0.5


# ------------------------------------------------------------------ item 4: the cure did not last, or needed ACS off

@pytest.mark.parametrize("sentence", [
    "Upgrading NCCL fixed the hang only after we also disabled ACS in the BIOS.",   # probe (fr47a/32)
    "Upgrading NCCL fixed the hang for a day, now it hangs again.",                 # probe (fr47a/33)
    "Upgrading NCCL fixed the hang for a while. Then the hang came back.",          # probe
    "Upgrading NCCL fixed it at first. A day later it hung again.",                 # probe
    "Upgrading NCCL fixed the hang for a day but it keeps hanging.",                # probe
    "Upgrading NCCL fixed the hang once we also booted with iommu=pt.",             # probe: the IOMMU's own test
])
def test_a_release_cure_undone_or_shared_with_acs_leaves_the_peer_path_suspect(tmp_path, sentence):
    report = probe(tmp_path, sentence)
    assert report["verdict"]["category"] == "p2p_disabled", json.dumps(report["verdict"])


# ------------------------------------------------------------------ near-misses: the pass's reading kept

@pytest.mark.parametrize("sentence", [
    "Upgrading NCCL to 2.21.5 fixed the hang.",                           # probe: audit47b's own
    "Updating PyTorch to 2.4 fixed it.",                                  # probe: audit47b's own
    "Upgrading NCCL to 2.21.5 fixed the allreduce hang.",                 # probe: the hang named with a modifier
    "Upgrading NCCL fixed the problem for us.",                           # probe
    "Upgrading NCCL fixed the hang and the import error.",                # probe: the hang among what it fixed
    "Upgrading NCCL to 2.21.5 fixed the NCCL timeout.",                   # probe: the hang as a timeout
    "Upgrading NCCL to 2.21.5 fixed the hang. It has run fine for a week.",  # probe: it lasted
    "Upgrading NCCL to 2.21.5 fixed the hang. Disabling ACS before had not helped.",  # probe: ACS did not cure it
    "Upgrading NCCL to 2.21.5 fixed the hang and training continues normally.",  # probe: "continues" is no hang
    "Upgrading NCCL to 2.21.5 fixed it completely.",                      # probe: a pronoun and an adverb
])
def test_a_release_that_cured_the_hang_still_counts_against_the_peer_path(tmp_path, sentence):
    report = probe(tmp_path, sentence)
    assert report["verdict"]["category"] != "p2p_disabled", json.dumps(report["verdict"])
    f = pcie_finding(report)
    assert f["confidence"] < 0.5 and "build" in f["title"]
