"""The topic rules (topology, nccl, host, health, workload) on facts parsed from the real ticket
attachments, and on variants derived from that real text (a line deleted, a value changed) to
show each finding appears for its evidence and disappears without it."""

import re
import shutil
from pathlib import Path

import pytest
from conftest import shared_path

from diagnose.bundle import read_bundle
from diagnose.findings import Finding
from rules import catalog, claims, common
from rules.engine import evaluate, verdict


def bundle(tmp_path, name, edits=None, drop=()):
    """A copy of a real ticket (without its answer key), with `edits` {file: fn(text) -> text}."""
    src = shared_path("tickets", name)
    dst = tmp_path / name
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("expected.toml", *drop))
    for file, fn in (edits or {}).items():
        path = dst / file
        path.write_text(fn(path.read_text()))
    return dst


def run(path, prefix=""):
    facts = read_bundle([path])
    findings = evaluate(facts, only=[prefix] if prefix else None)
    return facts, findings


def by_rule(findings, rule_id):
    return [f for f in findings if f.rule == rule_id]


def problems(findings, rule_id):
    return [f for f in by_rule(findings, rule_id) if f.is_problem]


def without_lines(pattern):
    return lambda text: "\n".join(line for line in text.splitlines() if not re.search(pattern, line)) + "\n"


def replace(old, new):
    def fn(text):
        assert old in text, old
        return text.replace(old, new)
    return fn


# --------------------------------------------------------------------------- topology

P2P_LOC = "010-nccl-tests-228-a100-p2p-level-loc-forces-shm"


def test_p2p_level_loc_with_nvlink_is_shm_fallback(tmp_path):
    _, fs = run(bundle(tmp_path, P2P_LOC), "topology.")
    (f,) = problems(fs, "topology.p2p_forced_off")
    assert (f.category, f.severity) == ("shm_fallback", "critical")
    assert f.evidence[0].source == "attachment2.log:1" and f.evidence[0].measured == "LOC"
    assert any("NVLink" in e.detail for e in f.evidence)  # what it was compared with
    assert "NCCL_P2P_LEVEL" in f.fix and f.references


def test_p2p_finding_disappears_without_the_setting(tmp_path):
    _, fs = run(bundle(tmp_path, P2P_LOC, {"attachment2.log": without_lines("NCCL_P2P_LEVEL")}), "topology.")
    assert not by_rule(fs, "topology.p2p_forced_off")
    # NVL still allows P2P over NVLink: not a finding either
    _, fs = run(bundle(tmp_path / "nvl", P2P_LOC, {"attachment2.log": replace("LOC", "NVL")}), "topology.")
    assert not by_rule(fs, "topology.p2p_forced_off")


def test_p2p_off_without_nvlink_is_p2p_disabled(tmp_path):
    path = bundle(tmp_path, P2P_LOC, drop=("attachment1.txt", "ticket.toml"))
    _, fs = run(path, "topology.")
    (f,) = problems(fs, "topology.p2p_forced_off")
    assert (f.category, f.severity) == ("p2p_disabled", "warning")


def test_nvlink_links_all_active_pass(tmp_path):
    _, fs = run(bundle(tmp_path, P2P_LOC), "topology.nvlink_links")
    (f,) = by_rule(fs, "topology.nvlink_links")
    # 12 links of GPU0; GPU1's list is cut by '...': not reported, never "1 on GPU 1" (review item 11)
    assert f.severity == "ok" and f.evidence[0].measured == 12 and f.title.endswith("(12 on GPU 0)")


INACTIVE_BY_DESIGN = "018-azurehpc-health-checks-162-h100-pcie-inactive-links-by-design"


def test_inactive_links_on_bridged_pcie_card_are_by_design(tmp_path):
    _, fs = run(bundle(tmp_path, INACTIVE_BY_DESIGN), "topology.")
    (links,) = by_rule(fs, "topology.nvlink_links")
    assert links.severity == "ok" and "by design" in links.title
    (bw,) = by_rule(fs, "topology.pair_bandwidth")
    assert bw.severity == "ok"
    assert bw.evidence[0].measured == 256.63 and bw.evidence[0].expected == 300.0  # H100 PCIe bridge, per direction


def test_inactive_links_on_sxm_board_are_a_fault(tmp_path):
    path = bundle(tmp_path, INACTIVE_BY_DESIGN,
                  {"ticket.toml": replace("NVIDIA H100 PCIe (Azure NCv5)", "NVIDIA H100 80GB HBM3")})
    _, fs = run(path, "topology.nvlink_links")
    (f,) = problems(fs, "topology.nvlink_links")
    assert (f.category, f.severity) == ("nvlink_down", "critical")
    assert f.evidence[0].source == "attachment1.log:3"


def test_bidirectional_p2p_at_82_percent_is_healthy(tmp_path):
    facts, fs = run(bundle(tmp_path, "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional"))
    (f,) = by_rule(fs, "topology.pair_bandwidth")
    assert f.severity == "ok" and f.evidence[0].expected == 900.0
    assert verdict(fs, facts.missing).category == "healthy"


def test_p2p_at_pcie_speed_on_nvlink_pairs(tmp_path):
    """The same matrix with every off-diagonal pair cut to PCIe Gen5 speed is no longer healthy."""
    def cut(text):
        return re.sub(r"\b7[4-7]\d\.\d\d\b", "101.00", text)
    _, fs = run(bundle(tmp_path, "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional", {"attachment2.txt": cut}),
                "topology.")
    (f,) = problems(fs, "topology.pair_bandwidth")
    assert f.category == "pcie_fallback"


def test_lspci_downgraded_speed_is_degraded_but_hedged(tmp_path):
    _, fs = run(bundle(tmp_path, "019-janhq-183-4090-riser-pcie-gen1-downgraded"), "topology.pcie_link")
    (f,) = problems(fs, "topology.pcie_link")
    assert (f.category, f.severity) == ("pcie_link_degraded", "warning")
    assert f.confidence < 0.7 and "idle" in f.summary  # the Gen1-at-idle caveat is stated
    assert (f.evidence[0].measured, f.evidence[0].expected) == (2.5, 16.0)


def test_lspci_width_loss_is_critical_and_full_link_passes(tmp_path):
    path = bundle(tmp_path, "019-janhq-183-4090-riser-pcie-gen1-downgraded",
                  {"attachment1.txt": replace("Width x16 (ok)", "Width x8 (downgraded)")})
    _, fs = run(path, "topology.pcie_link")
    (f,) = problems(fs, "topology.pcie_link")
    assert f.severity == "critical" and "x8" in f.title
    path = bundle(tmp_path / "ok", "019-janhq-183-4090-riser-pcie-gen1-downgraded",
                  {"attachment1.txt": replace("Speed 2.5GT/s (downgraded)", "Speed 16GT/s")})
    _, fs = run(path, "topology.pcie_link")
    assert not problems(fs, "topology.pcie_link")


def test_gen1_on_an_idle_gpu_is_not_a_fault(tmp_path):
    facts, fs = run(bundle(tmp_path, "021-nvtop-6-gen1-at-idle-false-alarm"))
    assert not problems(fs, "topology.pcie_link")
    assert any(f.severity == "ok" and "power saving" in f.title for f in by_rule(fs, "topology.pcie_link"))
    v = verdict(fs, facts.missing)
    assert v.category == "healthy" and v.confidence <= 0.6


def test_gen1_under_load_is_degraded(tmp_path):
    """nvtop's utilisation bar says the GPU was busy: now Gen1 is a real finding."""
    path = bundle(tmp_path, "021-nvtop-6-gen1-at-idle-false-alarm",
                  {"attachment1.txt": lambda t: t.rstrip("\n") + "\n GPU[||||||||||||||||    95%]\n"})
    _, fs = run(path, "topology.pcie_link")
    (f,) = problems(fs, "topology.pcie_link")
    assert f.severity == "critical" and "under load" in f.title


def test_slow_nvidia_smi_on_bridged_pair_is_nvlink_trouble(tmp_path):
    name = "013-nccl-557-2gpu-nvlink-bridge-hang-slow-nvml"
    _, fs = run(bundle(tmp_path, name), "topology.nvlink_errors")
    (f,) = problems(fs, "topology.nvlink_errors")
    assert f.category == "nvlink_down" and any("112" in e.detail for e in f.evidence)
    path = bundle(tmp_path / "fast", name,
                  {"ticket.toml": replace("nvidia-smi topo -m takes 112 seconds to complete, but ", "")})
    _, fs = run(path, "topology.nvlink_errors")
    assert not problems(fs, "topology.nvlink_errors")


def test_virtual_machine_with_low_internode_busbw(tmp_path):
    name = "006-nccl-949-a100-vm-internode-acs"
    _, fs = run(bundle(tmp_path, name), "topology.virtualization")
    (f,) = problems(fs, "topology.virtualization_no_p2p")
    measured = [e for e in f.evidence if e.measured == 27.0]
    assert measured and measured[0].expected == 50.0  # 2x HDR 200 Gb/s
    # at line rate, being a VM alone is not a finding
    _, fs = run(bundle(tmp_path / "fast", name, {"ticket.toml": replace("value = 27.0", "value = 46.0")}),
                "topology.virtualization")
    assert not problems(fs, "topology.virtualization_no_p2p")


def test_vm_guest_without_p2p(tmp_path):
    _, fs = run(bundle(tmp_path, "036-nccl-1329-a800-vm-4gpu-no-p2p-flat-topology"), "topology.virtualization")
    (f,) = problems(fs, "topology.virtualization_no_p2p")
    assert f.category == "virtualization_no_p2p"


# --------------------------------------------------------------------------- nccl


SOCKET = "030-nccl-451-docker-ibv-open-device-failed-socket"


def test_socket_fallback_when_ib_cannot_be_opened(tmp_path):
    _, fs = run(bundle(tmp_path, SOCKET), "nccl.socket")
    (f,) = problems(fs, "nccl.socket_fallback")
    assert (f.category, f.severity) == ("socket_fallback", "critical")
    assert {e.source for e in f.evidence} >= {"attachment1.log:5", "attachment1.log:2"}
    assert "/dev/infiniband" in f.fix


def test_no_socket_finding_without_socket_lines(tmp_path):
    path = bundle(tmp_path, SOCKET, {"attachment1.log": without_lines(r"Socket")})
    _, fs = run(path, "nccl.socket")
    assert not problems(fs, "nccl.socket_fallback")


GDR = "032-nccl-tests-152-a100-nv-peer-mem-not-loaded"


def test_gdr_off_on_one_node(tmp_path):
    _, fs = run(bundle(tmp_path, GDR), "nccl.gdr")
    (f,) = problems(fs, "nccl.gdr")
    assert (f.category, f.severity) == ("gdr_disabled", "critical")
    assert f.evidence[0].source == "attachment2.log:4" and f.evidence[1].measured == "NET/IB/1/GDRDMA"


def test_gdr_everywhere_passes(tmp_path):
    fix = lambda t: re.sub(r"(NET/IB/\d+)(/Shared)?$", r"\1/GDRDMA\2", t, flags=re.M)  # noqa: E731
    _, fs = run(bundle(tmp_path, GDR, {"attachment2.log": fix}), "nccl.gdr")
    (f,) = by_rule(fs, "nccl.gdr")
    assert f.severity == "ok"


def test_multi_node_without_nccl_log_asks_for_it(tmp_path):
    facts, fs = run(bundle(tmp_path, "033-nccl-tests-29-dgx1-v100-gdr-enabled-doubled"))
    gaps = [f for f in fs if f.category == "insufficient_data"]
    assert any("NCCL_DEBUG=INFO" in f.fix and "nvidia_peermem" in f.fix for f in gaps)
    assert all(f.fix.startswith("attach ") for f in gaps)
    assert verdict(fs, facts.missing).category == "insufficient_data"


@pytest.mark.parametrize("name", ["043-nccl-1876-222-to-225-ring-pxn-drop-a100",
                                  "044-nccl-371-v100-ib-278-slower-than-256-gdr-read"])
def test_version_regression(tmp_path, name):
    _, fs = run(bundle(tmp_path, name), "nccl.regression")
    (f,) = problems(fs, "nccl.regression")
    assert f.category == "nccl_regression"
    assert any(e.source.startswith("rules/catalog/nccl_regressions.toml") for e in f.evidence)


def test_known_regression_range_alone_is_only_a_note(tmp_path):
    """Without the reporter's version comparison, a version inside a known range is a hint, not a verdict."""
    name = "043-nccl-1876-222-to-225-ring-pxn-drop-a100"
    path = bundle(tmp_path, name, {"ticket.toml": lambda t: re.sub(r"(?m)^(description|nccl) = .*$", "", t)})
    _, fs = run(path, "nccl.regression")
    assert not problems(fs, "nccl.regression")
    assert [f.severity for f in by_rule(fs, "nccl.regression")] == ["info"]


def test_busbw_above_line_rate_with_nvls_is_not_an_error(tmp_path):
    """An nccl-tests row (real format from ticket 006) at 1 GiB with 480 GB/s busbw on H100."""
    row = ("  1073741824     268435456     float     sum      -1"
           "   3900.0  275.32  481.81      0   3900.0  275.32  481.81      0\n")
    path = bundle(tmp_path, "006-nccl-949-a100-vm-internode-acs", {"attachment1.txt": lambda t: t + row},
                  drop=("ticket.toml",))
    (path / "ticket.toml").write_text('[hardware]\ngpu = "NVIDIA H100 80GB HBM3"\ngpu_count = 8\nnodes = 1\n'
                                      'interconnect = "NVSwitch"\n')
    _, fs = run(path, "nccl.busbw")
    (f,) = by_rule(fs, "nccl.busbw")
    assert f.severity == "ok" and f.evidence[0].measured == 481.81  # busbw, never algbw (275.32)


def test_small_messages_say_nothing_about_bandwidth(tmp_path):
    _, fs = run(bundle(tmp_path, "006-nccl-949-a100-vm-internode-acs", drop=("ticket.toml",)), "nccl.busbw")
    assert not by_rule(fs, "nccl.busbw")  # 8-32 byte rows measure latency


# --------------------------------------------------------------------------- host


def test_shm_segment_failure(tmp_path):
    name = "027-torchtitan-853-ci-container-shm-16mb-h100"
    _, fs = run(bundle(tmp_path, name), "host.shm")
    (f,) = problems(fs, "host.shm_too_small")
    assert f.evidence[0].source == "attachment1.log:4" and f.evidence[0].measured == 7340384
    assert "--shm-size" in f.fix
    _, fs = run(bundle(tmp_path / "no", name, {"attachment1.log": without_lines("shared memory segment")}), "host.shm")
    assert not problems(fs, "host.shm_too_small")


CROSS = "022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower"


def test_cross_socket_p2p_is_slower(tmp_path):
    _, fs = run(bundle(tmp_path, CROSS), "host.cross")
    (f,) = problems(fs, "host.cross_socket_p2p")
    assert f.category == "numa_affinity"
    assert f.evidence[0].measured < 42 and f.evidence[0].expected > 49


def test_uniform_pcie_p2p_has_no_socket_finding(tmp_path):
    path = bundle(tmp_path, CROSS, {"attachment2.txt": lambda t: re.sub(r"\b(39|40|41)\.\d\d\b", "50.10", t)})
    _, fs = run(path, "host.cross")
    assert not problems(fs, "host.cross_socket_p2p")


def test_unpinned_workers_on_two_numa_nodes(tmp_path):
    name = "080-vllm-13855-dgx-h100-pin-vllm-to-numa-region"
    _, fs = run(bundle(tmp_path, name), "host.numa")
    (f,) = problems(fs, "host.numa_affinity")
    assert f.category == "numa_affinity"
    # without the statement about binding, two NUMA nodes alone are not a finding of this rule
    path = bundle(tmp_path / "q", name,
                  {"ticket.toml": replace("the worker processes are launched without any CPU or memory binding. ", "")})
    _, fs = run(path, "host.numa")
    assert not by_rule(fs, "host.numa_affinity")


# --------------------------------------------------------------------------- health


def test_progressive_slowdown_suggests_throttling(tmp_path):
    name = "075-tensorflow-40042-gpu-overheat-progressive-slowdown"
    _, fs = run(bundle(tmp_path, name), "health.")
    (f,) = problems(fs, "health.throttling")
    assert f.category == "throttling" and f.confidence <= 0.6
    assert any(g.category == "insufficient_data" and "TEMPERATURE" in g.fix for g in fs)
    path = bundle(tmp_path / "flat", name,
                  {"ticket.toml": replace("degrades steadily over a long run of the same workload",
                                          "is lower than expected")})
    _, fs = run(path, "health.")
    assert not problems(fs, "health.throttling")


def test_cool_gpu_at_p0_is_not_throttled(tmp_path):
    _, fs = run(bundle(tmp_path, "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional"), "health.")
    assert [f.severity for f in by_rule(fs, "health.throttling")] == ["ok"]


# --------------------------------------------------------------------------- workload


def test_eager_mode_with_ab_runs(tmp_path):
    name = "058-sonar-1114-aphrodite-enforce-eager-tp2-3060"
    facts, fs = run(bundle(tmp_path, name))
    (f,) = problems(fs, "workload.eager_mode")
    # the A/B runs (0.9) and the rate below its expected band, which eager mode's cost accounts for, together
    (gap,) = by_rule(fs, "ticket.measured_vs_expected")
    assert gap.severity == "info" and "Explained by workload.eager_mode" in gap.summary
    assert f.confidence == 0.95 and "accounts for the measured gap" in f.summary
    assert [(e.source, e.measured) for e in f.evidence[1:3]] == [("attachment1.log:4", 31.4),
                                                                  ("attachment1.log:10", 57.8)]
    assert verdict(fs, facts.missing).category == "eager_mode"
    path = bundle(tmp_path / "graphs", name, {"attachment1.log": lambda t: t.replace(" --enforce-eager", "")})
    _, fs = run(path, "workload.eager")
    assert not problems(fs, "workload.eager_mode")


def test_tp_not_dividing_heads(tmp_path):
    name = "056-vllm-596-3x3090-llama2-13b-40-heads-tp3"
    _, fs = run(bundle(tmp_path, name), "workload.tp_not")
    (f,) = problems(fs, "workload.tp_not_dividing_heads")
    assert f.evidence[0].measured == 40 and "2" in f.fix
    path = bundle(tmp_path / "tp2", name, {"ticket.toml": replace("tp = 3", "tp = 2")}, drop=("attachment1.txt",))
    _, fs = run(path, "workload.tp_not")
    assert [f.severity for f in by_rule(fs, "workload.tp_not_dividing_heads")] == ["ok"]


def test_tp_across_nodes(tmp_path):
    name = "076-vllm-6938-llama-multinode-tp64-vs-tp8-pp8"
    _, fs = run(bundle(tmp_path, name), "workload.cross")
    (f,) = problems(fs, "workload.cross_node_tp")
    assert f.evidence[0].measured == 64 and "PP=8" in f.fix
    _, fs = run(bundle(tmp_path / "ok", name, {"ticket.toml": replace("tp = 64", "tp = 8")}), "workload.cross")
    assert not problems(fs, "workload.cross_node_tp")


def test_batch1_tp_scaling_flat(tmp_path):
    name = "078-vllm-22331-gptoss-120b-a100-tp2-slower-than-tp1"
    _, fs = run(bundle(tmp_path, name), "workload.latency")
    (f,) = problems(fs, "workload.latency_bound_small_batch")
    assert (f.evidence[0].measured, f.evidence[1].measured) == (90.0, 77.0)
    path = bundle(tmp_path / "scales", name, {"ticket.toml": replace("value = 77.0", "value = 165.0")})
    _, fs = run(path, "workload.latency")
    assert not problems(fs, "workload.latency_bound_small_batch")


def test_pp_across_nodes_network_not_critical(tmp_path):
    _, fs = run(bundle(tmp_path, "028-vllm-6610-gh200-multinode-pp-socket-and-expected"), "workload.pp")
    (f,) = by_rule(fs, "workload.pp_network")
    assert f.category == "expected_physics"
    assert any(e.measured == 16384 for e in f.evidence)  # Llama-3-70B hidden 8192 x 2 bytes


# --------------------------------------------------------------------------- helpers and verdict


def test_claims_read_versions_and_rates():
    assert claims.nccl_versions("dropped after upgrading NCCL from 2.22 to 2.25; nccl-tests 2.17.6, CUDA 12.4") \
        == ["2.22", "2.25"]
    assert claims.nccl_versions("driver 2.5 with no mention of the library") == []
    assert common._rate_from_text("2x HDR 200Gb/s InfiniBand per node") == 50.0
    assert common._rate_from_text("400 Gbps, then 800 Gbps (BlueField-3)") == 100.0
    assert common._rate_from_text("4x NDR") == 200.0


def test_claims_respect_negation(tmp_path):
    """The reporter ruling a situation out is not a claim of it (075 with its sentence negated)."""
    name = "075-tensorflow-40042-gpu-overheat-progressive-slowdown"
    path = bundle(tmp_path, name,
                  {"ticket.toml": replace("training throughput degrades steadily over a long run of the same workload",
                                          "there is no thermal throttling and the throughput is flat")})
    facts = read_bundle([path])
    assert not claims.find(facts, "slowdown_over_time")
    assert not problems(evaluate(facts, only=["health."]), "health.throttling")


def _f(category, severity, confidence):
    return Finding(rule="t", category=category, severity=severity, confidence=confidence, title="t", summary="s",
                   fix="attach x")


def test_verdict_weak_note_does_not_beat_an_open_question():
    v = verdict([_f("numa_affinity", "info", 0.5), _f("insufficient_data", "info", 0.0)])
    assert v.category == "insufficient_data" and "numa_affinity" in v.summary
    assert verdict([_f("numa_affinity", "info", 0.7),
                    _f("insufficient_data", "info", 0.0)]).category == "insufficient_data"
    assert verdict([_f("numa_affinity", "warning", 0.5),
                    _f("insufficient_data", "info", 0.0)]).category == "numa_affinity"
    assert verdict([_f("expected_physics", "info", 0.6),
                    _f("insufficient_data", "info", 0.0)]).category == "expected_physics"
    assert verdict([_f("numa_affinity", "info", 0.5)]).category == "numa_affinity"
    assert verdict([_f("healthy", "ok", 0.4), _f("insufficient_data", "info", 0.0)]).category == "insufficient_data"
    assert verdict([_f("healthy", "ok", 0.6), _f("insufficient_data", "info", 0.0)]).category == "healthy"
    assert verdict([_f("healthy", "ok", 0.4)]).category == "insufficient_data"  # config checks alone


def test_batch1_on_more_gpus_than_the_model_needs(tmp_path):
    """078 with a catalog GPU row and only the TP=2 figure: the roofline says TP=1 fits."""
    name = "078-vllm-22331-gptoss-120b-a100-tp2-slower-than-tp1"
    def edit(t):
        t = t.replace('gpu = "NVIDIA A100 80GB"', 'gpu = "NVIDIA A100-SXM4-80GB"')
        return re.sub(r'\[\[measured\]\]\nmetric = "decode_tok_s"\nvalue = 90.0\ntp = 1\nbatch = 1\n', "", t)
    _, fs = run(bundle(tmp_path, name, {"ticket.toml": edit}), "workload.")
    assert not by_rule(fs, "workload.latency_bound_small_batch")  # one TP size measured: nothing to compare
    (f,) = by_rule(fs, "workload.batch1_fits_fewer")
    assert f.category == "latency_bound_small_batch" and f.severity == "info"
    assert any(e.source == "prediction:roofline" for e in f.evidence)


# --------------------------------------------------------------------------- same rules on a live node


def test_same_rules_fire_on_node_replays():
    """NVML replays (tests/recordings, transcribed from the same real outputs) give the facts a
    `diagnose node` run gives; the ticket rules judge them the same way."""
    from probes import runner
    from probes.recording import ReplaySession

    recordings = Path(__file__).parent / "recordings"
    facts = runner.run(ReplaySession(recordings / "hgx-a100-nvlink-p2p-level-loc.json"))
    (f,) = problems(evaluate(facts, only=["topology."]), "topology.p2p_forced_off")
    assert f.category == "shm_fallback" and f.evidence[0].source.startswith("probe:")
    facts = runner.run(ReplaySession(recordings / "2x-gtx1080ti-pcie-gen1-reading.json"))
    fs = evaluate(facts, only=["topology.pcie_link"])
    assert not problems(fs, "topology.pcie_link")


DGX = "080-vllm-13855-dgx-h100-pin-vllm-to-numa-region"
SXM_NAME = ('gpu = "NVIDIA H100 (DGX H100)"', 'gpu = "NVIDIA H100 80GB HBM3"')


def test_nvswitch_board_all_pairs_on_nvlink(tmp_path):
    _, fs = run(bundle(tmp_path, DGX, {"ticket.toml": replace(*SXM_NAME)}), "topology.nvlink_missing")
    (f,) = by_rule(fs, "topology.nvlink_missing")
    assert f.severity == "ok"


def test_pcie_path_on_nvswitch_board_is_nvlink_down(tmp_path):
    def one_pair_on_pcie(t):
        return t.replace("GPU1\tNV18\t X \tNV18", "GPU1\tNV18\t X \tSYS", 1)
    path = bundle(tmp_path, DGX, {"ticket.toml": replace(*SXM_NAME), "attachment1.txt": one_pair_on_pcie})
    _, fs = run(path, "topology.nvlink_missing")
    (f,) = problems(fs, "topology.nvlink_missing")
    assert f.category == "nvlink_down" and f.evidence[0].measured == "SYS"


def test_nccl_reports_gdr_and_p2p_refused(tmp_path):
    """NCCL's own INFO lines (same prefix as ticket 032's log) saying GDR / P2P are unavailable."""
    def add(t):
        return (t.replace("/GDRDMA", "")
                + "gpu32:22612:22693 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)\n"
                "gpu32:22612:22693 [0] NCCL INFO Could not enable P2P between dev 0(=7000) and dev 1(=b000)\n")
    path = bundle(tmp_path, GDR, {"attachment2.log": add})
    facts, fs = run(path)
    (g,) = problems(fs, "nccl.gdr")
    assert g.severity == "critical" and g.evidence[0].measured == "Disabled"
    # P2P/IPC is still in the log for that pair, so the refused-P2P line alone is not a finding
    assert not problems(fs, "topology.nccl_transport")


def _two_tp_ticket(tmp_path, model: str, gpu_name: str, tps: tuple[int, int], values: tuple[float, float]):
    """078's bundle with its model, GPU, the two measured TP sizes and their decode tok/s replaced."""
    def edit(text: str) -> str:
        head, *blocks = text.split("[[measured]]")
        head = head.replace('gpu = "NVIDIA A100 80GB"', f'gpu = "{gpu_name}"').replace(
            'model = "openai/gpt-oss-120b"', f'model = "{model}"').replace("tp = 2\n", f"tp = {tps[1]}\n")
        out = []
        for block, tp, value in zip(blocks, tps, values):
            block = re.sub(r"tp = \d+", f"tp = {tp}", block)
            out.append(re.sub(r"value = [0-9.]+", f"value = {value:.1f}", block))
        return "[[measured]]".join([head, *out])

    return bundle(tmp_path, "078-vllm-22331-gptoss-120b-a100-tp2-slower-than-tp1", {"ticket.toml": edit})


def _ratio(model: str, gpu_name: str, lo: int, hi: int) -> float:
    from rules import catalog, roofline

    # the ticket names vLLM without its release: the newest release's profile gives the expected figures
    spec, gpu, vllm = catalog.find_model(model), catalog.find_gpu(gpu_name), catalog.release_candidates("vLLM")[-1]
    return (roofline.predict(spec, gpu, roofline.Layout(tp=hi), batch=1, engine=vllm).decode_tok_s_expected
            / roofline.predict(spec, gpu, roofline.Layout(tp=lo), batch=1, engine=vllm).decode_tok_s_expected)


@pytest.mark.parametrize("model, gpu_name, tps", [
    ("openai/gpt-oss-120b", "NVIDIA A100-SXM4-80GB", (1, 2)),  # 078's own setup: the prediction says TP2 barely helps
    ("openai/gpt-oss-120b", "NVIDIA A100-SXM4-80GB", (1, 8)),  # TP8 does help
])
def test_tp_scaling_as_the_prediction_says_is_physics(tmp_path, model, gpu_name, tps):
    """The larger TP's figure set to what the expected figures' ratio gives (for the engine the ticket
    names, vLLM): physics either way; latency_bound_small_batch where the predicted speed-up is at most
    x1.1, expected_physics above."""
    ratio = _ratio(model, gpu_name, *tps)
    _, fs = run(_two_tp_ticket(tmp_path, model, gpu_name, tps, (90.0, 90.0 * ratio)), "workload.latency")
    (f,) = by_rule(fs, "workload.latency_bound_small_batch")
    assert f.category == ("latency_bound_small_batch" if ratio <= 1.1 else "expected_physics")
    # the vLLM profile's expected ratio, cited as the expected figure's (not the roofline's: ut9a item 11)
    (pred,) = [e for e in f.evidence if e.source == "prediction:expected"]
    assert pred.expected == round(ratio, 2) and "vllm-0.14 profile" in pred.detail


def test_tp_scaling_far_below_the_prediction_is_not_called_physics(tmp_path):
    """TP8 at a third of what the prediction allows over TP1: the rule does not call it physics."""
    model, gpu_name = "openai/gpt-oss-120b", "NVIDIA A100-SXM4-80GB"
    ratio = _ratio(model, gpu_name, 1, 8)
    _, fs = run(_two_tp_ticket(tmp_path, model, gpu_name, (1, 8), (90.0, 90.0 * ratio / 3)), "workload.latency")
    assert not [f for f in by_rule(fs, "workload.latency_bound_small_batch") if f.category == "expected_physics"]


@pytest.mark.parametrize("visible", ["0,9", "-1,0", "1,2,12"])
def test_visible_devices_the_matrix_does_not_show_are_not_judged(tmp_path, visible):
    """A GPU index past the box, or -1 (CUDA's way to hide GPUs): no pair claim and no traceback (was a
    StopIteration raised inside the rule's generator)."""
    path = bundle(tmp_path, "033-nccl-tests-29-dgx1-v100-gdr-enabled-doubled")
    (path / "launch.txt").write_text(f"CUDA_VISIBLE_DEVICES={visible} vllm serve meta-llama/Llama-3-8B "
                                     f"--tensor-parallel-size 2\n")
    _, fs = run(path, "topology.tp_group")
    assert not by_rule(fs, "topology.tp_group_paths")


@pytest.mark.parametrize("visible, bad", [("0,5", True), ("0,1,2,3", False)])
def test_visible_devices_against_the_nvlink_mesh(tmp_path, visible, bad):
    """DGX-1 cube mesh (033's real topo -m): GPU0 and GPU5 are joined by SYS, GPU0-3 by NVLink."""
    path = bundle(tmp_path, "033-nccl-tests-29-dgx1-v100-gdr-enabled-doubled")
    (path / "launch.txt").write_text(f"CUDA_VISIBLE_DEVICES={visible} vllm serve meta-llama/Llama-3-8B "
                                     f"--tensor-parallel-size {len(visible.split(','))}\n")
    _, fs = run(path, "topology.tp_group")
    (f,) = by_rule(fs, "topology.tp_group_paths")
    assert (f.category == "pcie_fallback") is bad
    if bad:
        assert f.evidence[1].measured == "SYS"


def test_shm_is_expected_where_the_driver_refuses_p2p(tmp_path):
    """A SHM transport line (032's log, with SHM in place of P2P) on an RTX 4090 box is not a fault."""
    path = bundle(tmp_path, GDR, {"attachment2.log": replace("via P2P/IPC/read", "via SHM/direct/direct")},
                  drop=("attachment1.txt", "ticket.toml"))
    (path / "ticket.toml").write_text('[hardware]\ngpu = "NVIDIA GeForce RTX 4090"\n')
    _, fs = run(path, "topology.nccl_transport")
    (f,) = by_rule(fs, "topology.nccl_transport")
    assert f.severity == "info" and not f.is_problem
    (path / "ticket.toml").write_text('[hardware]\ngpu = "NVIDIA L40S"\n')  # P2P-capable PCIe board
    _, fs = run(path, "topology.nccl_transport")
    (f,) = by_rule(fs, "topology.nccl_transport")
    assert f.category == "p2p_disabled"


def test_p2p_refused_by_design_is_the_catalog_field_not_its_notes(tmp_path):
    """A user catalog row says `pcie_p2p = false`: SHM on that board is expected, whatever its notes say."""
    path = bundle(tmp_path, GDR, {"attachment2.log": replace("via P2P/IPC/read", "via SHM/direct/direct")},
                  drop=("attachment1.txt", "ticket.toml"))
    (path / "ticket.toml").write_text('[hardware]\ngpu = "Acme P2P-less 48GB"\n')
    row = ('[gpu.acme-p2pless]\nname = "Acme P2P-less 48GB"\nmemory_gb = 48\nhbm_gbs = 900\nbf16_tflops = 180\n'
           'fp8_tflops = 0\nfp32_tflops = 90\nnvlink_gen = 0\nnvlink_links = 0\nnvlink_gbs = 0\npcie_gen = 4\n'
           'pcie_lanes = 16\ntdp_w = 300\nsms = 100\ninterconnect = "pcie4"\nnotes = "{notes}"\n{p2p}')
    catalog_file = tmp_path / "acme.toml"
    for p2p, notes, expected in [("pcie_p2p = false\n", "a workstation card", "other"),
                                 ("", "P2P is disabled in this text only", "p2p_disabled")]:
        catalog_file.write_text(row.format(notes=notes, p2p=p2p))
        catalog.configure([str(catalog_file)])
        _, fs = run(path, "topology.nccl_transport")
        (f,) = by_rule(fs, "topology.nccl_transport")
        assert f.category == expected, (p2p, f.title)
    catalog.configure()


def test_multi_gpu_case_without_topology_asks_for_topo(tmp_path):
    _, fs = run(bundle(tmp_path, "056-vllm-596-3x3090-llama2-13b-40-heads-tp3"), "workload.evidence")
    (f,) = by_rule(fs, "workload.evidence_coverage")
    assert f.category == "insufficient_data" and "nvidia-smi topo -m" in f.fix
    _, fs = run(bundle(tmp_path, P2P_LOC), "workload.evidence")  # nvlink -s attached
    assert not by_rule(fs, "workload.evidence_coverage")


HW = Path(__file__).parent / "data" / "hardware"


def test_power_cap_at_default_limit_is_normal_but_a_lowered_limit_throttles(tmp_path):
    text = (HW / "smi_q_h100.txt").read_text()
    _, fs = run(HW / "smi_q_h100.txt", "health.throttling")
    assert not problems(fs, "health.throttling")  # SW Power Cap active at 689 of 700 W under load
    lowered = tmp_path / "smi.txt"
    lowered.write_text(text.replace("Current Power Limit               : 700.00 W",
                                    "Current Power Limit               : 450.00 W", 1))
    _, fs = run(lowered, "health.throttling")
    (f,) = problems(fs, "health.throttling")
    assert f.severity == "warning" and any(e.measured == 700.0 or e.expected == 450.0 for e in f.evidence)


def test_thermal_slowdown_is_throttling():
    _, fs = run(HW / "smi_qx_a100.xml", "health.throttling")
    (f,) = problems(fs, "health.throttling")
    assert f.severity == "critical" and "thermal" in f.evidence[0].measured


REAL = HW / "real"


@pytest.mark.parametrize("name, rule_id, category", [
    ("dmesg_fallen_off_bus_multiline_nvsentinel155.txt", "health.hardware_fault", "hardware_fault"),
    ("dmesg_xid79_fallen_off_bus_akash209.txt", "health.hardware_fault", "hardware_fault"),
    ("smi_q_remapped_rows_uncorrectable_pending.txt", "health.hardware_fault", "hardware_fault"),
    ("kmsg_xid149_145_nvlink_gpud1174.txt", "topology.nvlink_errors", "nvlink_down"),
    ("kmsg_xid45_after_nvlink_xid149_145.txt", "topology.nvlink_errors", "nvlink_down"),
    ("nvlink_s_b200_all_links_inactive.txt", "topology.nvlink_links", "nvlink_down"),
    ("topo_p2p_rw_2x_rtx5090_gns_tabs.txt", "topology.p2p_status", "p2p_disabled"),
])
def test_real_hardware_outputs(name, rule_id, category):
    """Real pasted outputs collected by the parser work (tests/data/hardware/real/SOURCES.md)."""
    _, fs = run(REAL / name)
    assert any(f.category == category for f in problems(fs, rule_id)), [(f.rule, f.category) for f in fs]


def test_nvlink_counters_a_few_replays_are_noise_a_recovery_is_not(tmp_path):
    """The real `nvidia-smi nvlink -e` output with its zero counters edited."""
    text = (REAL / "nvlink_e_h100_counters.txt").read_text()
    for edit, flagged in [(("Link 1: Replay Errors: 0", "Link 1: Replay Errors: 7"), False),
                          (("Link 1: Replay Errors: 0", "Link 1: Replay Errors: 4096"), True),
                          (("Link 17: Recovery Errors: 0", "Link 17: Recovery Errors: 1"), True)]:
        path = tmp_path / "nvlink_e.txt"
        path.write_text(replace(*edit)(text))
        _, fs = run(path, "topology.nvlink_errors")
        assert bool(problems(fs, "topology.nvlink_errors")) is flagged, edit


@pytest.mark.parametrize("name", ["nvlink_e_h100_counters.txt", "nvlink_s_a100_sxm4_x8.txt",
                                  "smi_qx_a100_sxm4_mig_535.xml"])
def test_real_healthy_outputs_raise_nothing(name):
    facts, fs = run(REAL / name)
    assert not [f for f in fs if f.is_problem and f.rule.startswith(("topology.", "nccl.", "host.", "health."))]


@pytest.mark.parametrize("busbw, severity", [(361.40, "ok"), (250.0, "info"), (42.10, "critical")])
def test_busbw_against_the_catalog_fabric(tmp_path, busbw, severity):
    """Real nccl-tests row format (ticket 006) at 1 GiB on an 8x H100 SXM node (nvswitch3: ~370 GB/s):
    matching, below typical (68 %: not a fault by itself), and at a PCIe rate (11 %: critical, as the
    node probe's own sweep says of the same figure)."""
    algbw = round(busbw * 8 / 14, 2)
    row = ("  1073741824     268435456     float     sum      -1"
           f"   3900.0  {algbw}  {busbw}      0   3900.0  {algbw}  {busbw}      0\n")
    path = bundle(tmp_path, "006-nccl-949-a100-vm-internode-acs", {"attachment1.txt": lambda t: t + row},
                  drop=("ticket.toml",))
    (path / "ticket.toml").write_text('[hardware]\ngpu = "NVIDIA H100 80GB HBM3"\ngpu_count = 8\nnodes = 1\n')
    _, fs = run(path, "nccl.busbw")
    (f,) = by_rule(fs, "nccl.busbw")
    assert f.severity == severity
    assert f.evidence[0].measured == busbw and f.evidence[1].expected == 370.0  # catalog nvswitch3 achieved busbw
    assert f.category == ("pcie_fallback" if severity == "critical" else "other" if severity == "info" else "healthy")


def test_bridged_nvlink_is_decided_by_the_catalog_row_not_the_name():
    """`nvlink_bridged` in gpus.toml decides; the name is only a guess for GPUs the catalog lacks."""
    from rules import catalog
    from rules.topology import _bridged_by_design

    assert _bridged_by_design(catalog.gpu("h100-pcie"), None)
    assert not _bridged_by_design(catalog.gpu("h100-sxm"), "NVIDIA H100 PCIe")  # the row wins
    assert not _bridged_by_design(catalog.gpu("gh200-96gb"), None)  # NVLink-C2C, no bridges
    assert _bridged_by_design(None, "NVIDIA A40")
    assert not _bridged_by_design(None, "NVIDIA H100 80GB HBM3")
    bridged = {k for k, g in catalog.gpus().items() if g.nvlink_bridged}
    assert all(catalog.gpu(k).nvlink_gbs > 0 for k in bridged)  # a bridge needs NVLink
