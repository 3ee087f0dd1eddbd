"""Defects found by answering real tickets about NCCL's newer paths (NVLink SHARP / NVLS multicast, cuMem host memory,
the NVSwitch fabric manager) as a support engineer (session s28, pass ut28e, issue 11; tests/data/ut28e, SOURCES.md
gives each thread's address, the answer it established and the verdict before and after), fixed in general and tested
on the pastes that showed them and on real near-misses:

- NCCL's own hint after a failed NVLS bind ("This is usually caused by a system or configuration error in the Fabric
  Manager or NVSwitches"), printed whatever the CUDA error, was read as the fabric failing where the bind had failed
  for 'out of memory' (the switch's 128 multicast slots exhausted), and such a bind or an NVLS said to exhaust its
  slots as the fabric not ready (rules.claims fabric_setup, _NVLS_OOM);
- a workaround by NCCL_CUMEM_HOST_ENABLE=0 was not known, "the test can pass" was no effect, and every workaround's fix
  was P2P's ACS/IOMMU advice (rules.ticket_rules.WORKAROUNDS);
- an NVSwitch / NVLS set-up failure asked for `nvidia-smi topo -m`, which does not show the fabric's state
  (rules.workload.evidence_coverage);
- the fabric manager failing to start (NV_WARN_NOTHING_TO_DO) on GPUs that sit on no NVSwitch (two RTX 4090s, an
  A40 pair on a bridge) was read as the NVSwitch fabric down, and a system named in a quoted guide ("starting with
  DGX-2") as the node (rules.topology.no_nvswitch_board);
- NCCL's advice in its own error text ("Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish ...") was read as a setting in
  use (diagnose.artifacts.launch.ADVICE).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims

DATA = Path(__file__).parent / "data" / "ut28e"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def lines(name: str, *needles: str) -> str:
    """The lines of a paste holding any of `needles`, verbatim."""
    return "\n".join(x for x in (DATA / name).read_text().splitlines() if any(n in x for n in needles))


# --------------------------------------------------------------------------- the pastes, as answered

@pytest.mark.parametrize("name", ["ao3841.md", "p5en173.md", "torchcomms3130.md", "gpuop2781.md"])
def test_an_nvls_bind_refused_by_the_fabric_is_the_fabric(name):
    """pytorch/ao#3841 (CUDA error 401 on the H100 runners: their Fabric Manager / NVSwitch configuration),
    aarora79/agentic-coding-harness-benchmarks#173 (p5en H200, TP=8: 401, NCCL_NVLS_ENABLE=0 unblocks it),
    meta-pytorch/torchcomms#3130 (B200: cuMulticastBindMem 802 during a ~7 s fabric manager stall) and
    NVIDIA/gpu-operator#2781 (HGX B200 on EKS: fabric manager started on the wrong path, fabric "In Progress", 802)."""
    r = verdict(name)
    assert r["verdict"]["category"] == "nvlink_down"
    lead = finding(r, "ticket.fabric_setup")
    assert lead and "nvidia-fabricmanager" in lead["fix"]


def test_the_fabric_failure_asks_for_the_fabric_state_not_the_topology():
    """pytorch/ao#3841 names 4 x H100 and NVLS failing: the next artifact is the Fabric section of `nvidia-smi -q`."""
    r = verdict("ao3841.md")
    ask = finding(r, "workload.evidence_coverage")
    assert ask is not None
    assert "nvidia-smi -q" in ask["fix"] and "Fabric section" in ask["fix"]
    assert "topo -m" not in ask["fix"]


def test_nvls_multicast_slots_exhausted_are_not_the_fabric():
    """NVIDIA/nccl#2077: NCCL 2.29.7 runs out of the NVSwitch's 128 multicast slots ('out of memory') on 8 x H200
    whose Fabric Manager reads State: Completed; NCCL's hint names the Fabric Manager anyway. Before: nvlink_down
    0.75 with "start nvidia-fabricmanager". After: a software failure, no fabric finding."""
    r = verdict("nccl2077.md")
    assert finding(r, "ticket.fabric_setup") is None
    assert r["verdict"]["category"] != "nvlink_down"


def test_nccl_hint_after_an_out_of_memory_bind_is_no_fabric_claim():
    """NVIDIA/nccl#2077's bind line with NCCL's hint after it, its bind line alone and its title: no fabric failure
    (the hint alone, as tests/data/review27b quotes it from a 401 paste, stays one: test_review27b); the 401 bind of
    pytorch/ao#3841 and the nvls.cc WARN of aarora79/...#173 (its error on the next line) still are."""
    both = lines("nccl2077.md", "Failed to bind", "This is usually caused")
    oom = lines("nccl2077.md", "Failed to bind")
    title = lines("nccl2077.md", "slot exhaustion")
    assert both.count("\n") == 1
    for text in (both, oom, title):
        assert text and not claims.find(said(text), "fabric_setup"), text
    assert claims.find(said(lines("nccl2077.md", "This is usually caused")), "fabric_setup")
    assert claims.find(said(lines("ao3841.md", "Failed to bind")), "fabric_setup")
    assert claims.find(said(lines("p5en173.md", "Failed to bind")), "fabric_setup")


def test_cumem_host_workaround_leads_with_its_own_fix():
    """NVIDIA/nccl#1838 (4 x L4, NCCL 2.27.3): shm.cc fails with 'peer access is not supported' and "When I add
    `NCCL_CUMEM_HOST_ENABLE=0`, the test can pass". Before: p2p_disabled with ACS/IOMMU advice. After: the cuMem
    host path leads (nccl_regression), its fix keeps the setting and asks for a newer NCCL, not ACS changes."""
    r = verdict("nccl1838.md")
    assert r["verdict"]["category"] == "nccl_regression"
    lead = finding(r, "ticket.setting_works_around")
    assert lead and "NCCL_CUMEM_HOST_ENABLE=0" in lead["title"]
    assert "ACS" not in lead["fix"] and "newer NCCL" in lead["fix"]


def test_nvls_workaround_fix_checks_the_fabric_not_pcie():
    """pie-project/pie#500: "NCCL_NVLS_ENABLE=0 resolves it completely" on 4 x H200 in a container; the
    workaround's fix names the fabric state, not ACS on PCIe switches."""
    r = verdict("pie500.md")
    lead = finding(r, "ticket.setting_works_around")
    assert lead and lead["category"] == "nvlink_down"
    assert "nvidia-smi -q" in lead["fix"] and "ACS" not in lead["fix"]


def test_the_test_can_pass_is_an_effect_but_passing_an_object_is_not():
    """"the test can pass." after a setting is its effect (NVIDIA/nccl#1838); "the test can pass <something> in"
    passes an argument, no effect (the clause is from a public testing guide whose address the index did not give,
    with a setting added: a constructed near-miss, not a thread)."""
    assert claims._effect(lines("nccl1838.md", "the test can pass")) == "fixes"
    assert claims._effect("so the test can pass the provided machine in, NCCL_P2P_DISABLE=1") is None


@pytest.mark.parametrize("name,board", [("cube29.md", "rtx-4090"), ("gpuop610.md", "a40")])
def test_fabric_manager_without_nvswitch_is_not_the_fabric(name, board):
    """data-infra/cube-studio#29 (two RTX 4090s) and NVIDIA/gpu-operator#610 (two A40s on one NVLink bridge):
    nvidia-fabricmanager exits with NV_WARN_NOTHING_TO_DO; the answer both threads reach from the fabric manager
    user guide: it serves NVSwitch systems only. Before: nvlink_down 0.69, "start nvidia-fabricmanager". After:
    healthy, the fabric manager check passed with the catalog's board as evidence, and no NVSwitch system assumed."""
    r = verdict(name)
    assert r["verdict"]["category"] == "healthy"
    ok = finding(r, "ticket.fabric_setup")
    assert ok and ok["category"] == "healthy" and "disable" in ok["summary"]
    assert any(f"catalog {board}: no NVSwitch" in str(e["detail"]) for e in ok["evidence"])
    ask = finding(r, "workload.evidence_coverage")
    assert ask is None or "NVSwitch system" not in ask["summary"]


def test_nccl_advice_in_its_own_error_text_is_no_setting():
    """NCCL's 'Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future' (NVIDIA/nccl#2077,
    aarora79/...#173) is advice printed with the error, not a setting in use: no slow-settings finding; the
    reporter's own 'NCCL_NVLS_ENABLE=0 resolves it completely' (pie-project/pie#500) still is a setting."""
    from diagnose.artifacts import launch

    for name in ("nccl2077.md", "p5en173.md"):
        line = lines(name, "if you wish")
        assert line and not [s for s in launch.parse(line, name) if type(s).__name__ == "NcclSetting"]
        assert finding(verdict(name), "nccl.slow_settings") is None
    said_line = lines("pie500.md", "resolves it completely")
    assert any(getattr(s, "name", "") == "NCCL_NVLS_ENABLE" for s in launch.parse(said_line, "pie500.md"))


def test_nvlink5_fabric_names_nvlsm_and_hopper_does_not():
    """NVIDIA/gpu-operator#2781 (HGX B200: without mlx5_ib/ib_umad the fabric manager starts on the pre-NVLink-5
    path) and meta-pytorch/torchcomms#3130 (B200): the fix names NVLSM and the IB modules (fabric manager user guide);
    pytorch/ao#3841 (H100, NVLink 4) does not."""
    for name in ("gpuop2781.md", "torchcomms3130.md"):
        assert "NVLSM" in finding(verdict(name), "ticket.fabric_setup")["fix"]
    assert "NVLSM" not in finding(verdict("ao3841.md"), "ticket.fabric_setup")["fix"]
