"""The hardware parsers on REAL tool output copied from public sources.

Every file under tests/data/hardware/real/ is verbatim output (cut to a section at most) from a
GitHub issue, pull request or repository; tests/data/hardware/real/SOURCES.md names the source
and the hardware of each. The values asserted here were read from the files by hand, so a test
fails when a parser reads a real paste differently from a person.
"""

import re
from pathlib import Path

import pytest
from conftest import named

from diagnose.artifacts import dmesg, lspci, nvlink, p2p_test, parse_text, smi_csv, smi_query, topo
from diagnose.evidence import GpuFact, HostFact, Note, NvLinkFact, P2PStatus, PairBandwidth, PcieLinkFact, XidEvent

REAL = Path(__file__).parent / "data" / "hardware" / "real"


def _text(name: str) -> str:
    return (REAL / name).read_text()


def _of(records, kind):
    return [r for r in records if isinstance(r, kind)]


def _host(records):
    return {r.name: r.value for r in records if isinstance(r, HostFact)}


# Which parser the registry picks for each sample: detection on real pastes, not only parsing.
EXPECTED_KINDS = {
    "smi_q_rtx4090_x8_535.txt": ["smi_query"],
    "smi_qx_a100_sxm4_mig_535.xml": ["smi_query"],
    "smi_q_a100_sxm4_row_remap_pending.txt": ["smi_query"],
    "smi_q_remapped_rows_uncorrectable_pending.txt": ["smi_query"],
    "smi_q_grep_fabric_health_unhealthy.txt": ["smi_query"],
    "smi_q_h800_fabric_in_progress_chunk.txt": ["smi_query"],
    "lspci_vvv_rtx_a4000_link_chunk.txt": ["lspci"],
    "lspci_vvv_s_rtx3090_gpu_and_bridge_acs.txt": ["lspci"],
    "dmesg_xid63_a100_row_remap.txt": ["dmesg_xid"],
    "dmesg_xid79_fallen_off_bus_akash209.txt": ["dmesg_xid"],
    "syslog_xid48_xid64_dbe_gpu_operator1146.txt": ["dmesg_xid"],
    "dmesg_xid43_31_94_akash244.txt": ["dmesg_xid"],
    "dmesg_fallen_off_bus_multiline_nvsentinel155.txt": ["dmesg_xid"],
    "kmsg_xid45_after_nvlink_xid149_145.txt": ["dmesg_xid"],
    "kmsg_xid149_145_nvlink_gpud1174.txt": ["dmesg_xid"],
    "p2p_bandwidth_2x_rtx5090_no_peer_access.txt": ["p2p_test"],
    "p2p_bandwidth_8x_a100_nvlink_uni.txt": ["p2p_test"],
    "topo_p2p_rw_2x_rtx5090_gns_tabs.txt": ["topo_matrix"],
    "topo_p2p_rw_2x_rtx5090_gns_spaces.txt": ["topo_matrix"],
    "topo_m_2x_rtx5090_phb.txt": ["topo_matrix"],
    "nvlink_s_a100_sxm4_x8.txt": ["nvlink_status"],
    "nvlink_e_h100_counters.txt": ["nvlink_status"],
    "nvlink_s_b200_all_links_inactive.txt": ["nvlink_status"],
    "numastat_p_bash_membind1_numactl45.txt": ["numastat"],
    # the launch reader takes the `$(pidof llama-server)` prompt for a llama.cpp tool: true of the process shown
    "numastat_m_p_llama_server_ikllama278.txt": ["numastat", "launch"],
    "numastat_cm_two_nodes_numactl115.txt": ["numastat"],
    "numastat_p_pcp_summary_view_pcp2527.txt": ["numastat"],
    "numactl_h_2x_e5_2698bv3_llamacpp1556.txt": ["numastat"],
    "gpu_numa_sysfs_8x_l4_dra1165.txt": ["gpu_numa"],
    "rocm_smi_showtoponuma_8gpu_rocm4740.txt": ["gpu_numa"],
    "smi_a_wsl2_gtx1650ti_wddm_ctk271.txt": ["smi_query"],
    "smi_table_wsl2_banner_wsl11277.txt": ["smi_table"],
    "smi_table_windows_wddm_2gpu_wsl9134.txt": ["smi_table"],
    "uname_proc_version_wsl2_wsl13027.txt": ["uname"],
    # smi_csv_tesla_p100.csv: smi_csv is not in artifacts.PARSER_MODULES (reported), so it is
    # tested through smi_csv.parse below rather than through the registry.
}


def test_every_sample_has_its_source_recorded():
    sources = _text("SOURCES.md")
    samples = sorted(p.name for p in REAL.iterdir() if p.name != "SOURCES.md")
    assert samples, "no real samples"
    for name in samples:
        row = re.search(rf"^\| `{re.escape(name)}` \|.*https://github\.com/\S+", sources, re.M)
        assert row, f"{name} has no SOURCES.md row with its URL"


@pytest.mark.parametrize("name", sorted(EXPECTED_KINDS))
def test_registry_recognises_each_real_sample(name):
    records, read = parse_text(_text(name), name)
    assert read.kinds == EXPECTED_KINDS[name], read.label()
    assert not _of(records, Note) or all(n.kind != "unrecognised_file" for n in _of(records, Note))


# --------------------------------------------------------------------------- nvidia-smi -q / -q -x


def test_smi_q_rtx4090_idle_gen1_and_busy_power_capped():
    records = named(smi_query.parse(_text("smi_q_rtx4090_x8_535.txt"), "q"))
    assert _host(records) == {"driver_version": "535.154.05", "cuda_driver_version": "12.2"}
    idle, busy = _of(records, GpuFact)
    # 8 GPUs attached, 2 blocks kept: a block's position is not the GPU's index.
    assert idle.index is None and busy.index is None
    assert (idle.source, idle.bus_id, idle.name) == ("q:9", "0000:01:00.0", "NVIDIA GeForce RTX 4090")
    assert (idle.pci_device_id, idle.catalog_key, idle.uuid) == ("0x2684", "rtx-4090",
                                                                 "GPU-370465f5-30e0-6877-b85c-16729f41b90f")
    assert (idle.pcie_gen_current, idle.pcie_gen_max, idle.pcie_width_current, idle.pcie_width_max) == (1, 4, 16, 16)
    assert idle.clock_event_reasons == ["idle"] and idle.pcie_read_under_load is False
    assert (idle.utilization_pct, idle.power_draw_w, idle.power_limit_w, idle.sm_clock_mhz) == (0, 18.90, 450.0, 210.0)
    assert idle.ecc_mode is False and idle.ecc_corrected_volatile is None  # ECC counters read "N/A"
    assert (idle.remapped_rows_pending, idle.remapped_rows_failure, idle.persistence_mode) == (False, False, True)
    assert (busy.source, busy.bus_id, busy.uuid) == ("q:204", "0000:23:00.0",
                                                     "GPU-8f4d1755-9c8a-3a19-b71e-c190b3801dec")
    assert (busy.pcie_gen_current, busy.pcie_gen_max, busy.pcie_width_current) == (4, 4, 16)
    assert busy.clock_event_reasons == ["sw_power_cap"] and busy.pcie_read_under_load is True
    assert (busy.utilization_pct, busy.power_draw_w, busy.temperature_c) == (97, 445.38, 72.0)
    assert (busy.sm_clock_mhz, busy.sm_clock_max_mhz, busy.memory_total_mib) == (2640.0, 3105.0, 24564.0)
    # Driver 535 prints "GPU Slowdown T.Limit Temp : -2 C", a margin, not a slowdown temperature.
    assert busy.temperature_slowdown_c is None


def test_smi_qx_a100_mig_cut_off_xml():
    records = named(smi_query.parse(_text("smi_qx_a100_sxm4_mig_535.xml"), "x"))
    assert _host(records) == {"driver_version": "535.54.03", "cuda_driver_version": "12.2"}
    (gpu,) = _of(records, GpuFact)  # the file stops after </fabric>: what was read is kept
    assert gpu.index is None  # attached_gpus 4, one <gpu> shown
    assert (gpu.source, gpu.name, gpu.bus_id, gpu.pci_device_id) == ("x:8", "NVIDIA A100-SXM4-80GB", "0000:01:00.0",
                                                                     "0x20b2")
    assert (gpu.uuid, gpu.catalog_key) == ("GPU-513536b6-7d19-9063-b049-1e69664bb298", "a100-80gb-sxm")
    assert gpu.mig_mode is True and gpu.ecc_mode is True and gpu.persistence_mode is False
    # The whole GPU's frame buffer, not one of the four 19968 MiB MIG slices printed before it.
    assert gpu.memory_total_mib == 81920.0
    assert (gpu.ecc_uncorrected_volatile, gpu.ecc_corrected_volatile) == (0, 0)
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max, gpu.pcie_width_current, gpu.pcie_width_max) == (4, 4, 16, 16)
    assert gpu.pcie_read_under_load is None  # utilization N/A under MIG, P0, no reason: unknown
    assert (gpu.power_draw_w, gpu.power_limit_w, gpu.temperature_c,
            gpu.temperature_slowdown_c) == (67.03, 500.0, 27.0, 89.0)
    assert (gpu.sm_clock_mhz, gpu.sm_clock_max_mhz, gpu.clock_event_reasons) == (1275.0, 1410.0, [])
    assert (gpu.fabric_state, gpu.fabric_status, gpu.remapped_rows_pending) == (None, None, None)  # all "N/A"


def test_smi_q_a100_after_xid63_counts_volatile_errors_only_and_matches_the_xid():
    records = named(smi_query.parse(_text("smi_q_a100_sxm4_row_remap_pending.txt"), "q"))
    assert _host(records) == {"driver_version": "510.73.08", "cuda_driver_version": "11.6"}
    (gpu,) = _of(records, GpuFact)
    assert (gpu.source, gpu.bus_id, gpu.name, gpu.catalog_key) == ("q:6", "0000:10:1c.0", "NVIDIA A100-SXM4-80GB",
                                                                   "a100-80gb-sxm")
    # 177 DRAM correctable in Volatile and 177 again in Aggregate: the volatile count is 177.
    assert (gpu.ecc_corrected_volatile, gpu.ecc_uncorrected_volatile) == (177, 0)
    assert (gpu.remapped_rows_pending, gpu.remapped_rows_failure) == (True, False)
    (xid,) = dmesg.parse(_text("dmesg_xid63_a100_row_remap.txt"), "k")
    assert (xid.xid, xid.bus_id, xid.source) == (63, gpu.bus_id, "k:1")
    assert xid.message.startswith("pid=1896, Row Remapper: New row marked for remapping")


def test_smi_q_single_sections_pasted_alone():
    text = _text("smi_q_remapped_rows_uncorrectable_pending.txt")
    assert smi_query.detect(text) >= 0.5  # no GPU line, no other marker: the section names it
    (gpu,) = _of(smi_query.parse(text, "r"), GpuFact)
    assert (gpu.source, gpu.bus_id, gpu.remapped_rows_pending, gpu.remapped_rows_failure) == ("r:4", None, True, None)

    text = _text("smi_q_grep_fabric_health_unhealthy.txt")
    assert smi_query.detect(text) >= 0.5
    (gpu,) = _of(smi_query.parse(text, "f"), GpuFact)
    assert (gpu.source, gpu.fabric_state, gpu.fabric_status) == ("f:3", "Completed", "Success")
    assert (gpu.fabric_health, gpu.fabric_bandwidth) == ("Unhealthy", "Full")  # Fabric > Health, ut10b #3


@pytest.mark.parametrize("summary, bandwidth, verdict, severity", [
    ("Unhealthy", "Full", "nvlink_down", "critical"),  # the paste as filed (dra-driver-nvidia-gpu#626)
    ("Limited Capacity", "Degraded", "nvlink_down", "warning"),  # NVML's other two non-healthy values
    ("Healthy", "Degraded", "nvlink_down", "warning"),
    ("Healthy", "Full", "healthy", "ok"),
])
def test_fabric_health_is_judged_not_only_its_registration(tmp_path, summary, bandwidth, verdict, severity):
    """A fabric can register (State Completed, Status Success) and still report itself unhealthy;
    the ticket read the registration alone and said healthy. The variants change the two values
    as NVML defines them (nvmlFabricDefs); the paste re-indented with tabs reads the same."""
    from conftest import report_json

    text = _text("smi_q_grep_fabric_health_unhealthy.txt")
    text = re.sub(r"Summary(\s+): Unhealthy", rf"Summary\1: {summary}", text)
    text = re.sub(r"Bandwidth(\s+): Full", rf"Bandwidth\1: {bandwidth}", text)
    for name, body in (("spaces.txt", text), ("tabs.txt", text.replace("    ", "\t"))):
        (tmp_path / name).write_text(body)
        report = report_json("ticket", tmp_path / name)
        found = {f["rule"]: f for f in report["findings"]}
        assert found["topology.fabric_health"]["severity"] == severity, (name, list(found))
        assert report["verdict"]["category"] == verdict, (name, report["verdict"])


def test_smi_q_h800_chunk_fabric_in_progress_then_next_gpu():
    first, second = _of(smi_query.parse(_text("smi_q_h800_fabric_in_progress_chunk.txt"), "h"), GpuFact)
    # The paste starts inside a GPU block: its facts are kept, without a bus id to name the GPU.
    assert (first.bus_id, first.source, first.sm_clock_mhz, first.sm_clock_max_mhz) == (None, "h:4", 345.0, 1980.0)
    assert (first.fabric_state, first.fabric_status) == ("In Progress", None)  # Status "N/A"
    assert (second.bus_id, second.name, second.source) == ("0000:88:00.0", "NVIDIA H800", "h:32")


# --------------------------------------------------------------------------- lspci -vvv


def test_lspci_a4000_chunk_downgraded_speed_without_device_header():
    (link,) = lspci.parse(_text("lspci_vvv_rtx_a4000_link_chunk.txt"), "l")
    assert isinstance(link, PcieLinkFact) and link.source == "l:14"  # the LnkSta line
    assert (link.bus_id, link.cap_speed_gts, link.cap_width, link.sta_speed_gts,
            link.sta_width) == ("unknown", 16.0, 16, 2.5, 16)
    assert link.acs_redirect_enabled is None


def test_lspci_s_gpu_width_downgraded_and_bridge_named_by_its_command_line():
    gpu, bridge, host = lspci.parse(_text("lspci_vvv_s_rtx3090_gpu_and_bridge_acs.txt"), "s")
    # The GPU's `-s 0000:0<USER>:00.0` was mangled by the poster's redaction: no bus id to take.
    assert (gpu.bus_id, gpu.source, gpu.cap_speed_gts, gpu.cap_width, gpu.sta_speed_gts, gpu.sta_width) == (
        "unknown", "s:3", 16.0, 16, 2.5, 8)
    assert gpu.acs_redirect_enabled is None
    assert (bridge.bus_id, bridge.source, bridge.cap_width, bridge.sta_speed_gts) == ("0000:00:03.2", "s:7", 8, 2.5)
    assert bridge.acs_redirect_enabled is True  # ACSCtl: ReqRedir+ CmpltRedir+
    assert (host.name, host.value) == ("acs_enabled_bridges", ["0000:00:03.2"])


# --------------------------------------------------------------------------- kernel log (Xid)


def _xids(records):
    return [(r.xid, r.bus_id, r.source) for r in records if isinstance(r, XidEvent)]


def test_dmesg_xid79_and_the_fallen_off_bus_line():
    records = dmesg.parse(_text("dmesg_xid79_fallen_off_bus_akash209.txt"), "d")
    assert _xids(records) == [(79, "0000:a1:00.0", "d:4")]
    (note,) = _of(records, Note)
    assert (note.kind, note.source, note.data) == ("gpu_fallen_off_bus", "d:5", {"bus_id": "0000:a1:00.0"})


def test_syslog_xid48_and_64_in_the_middle_of_the_file_are_detected():
    text = _text("syslog_xid48_xid64_dbe_gpu_operator1146.txt")
    # Before the fix detect() only saw an Xid on the text's last line and read this file as nothing.
    assert dmesg.detect(text) > 0.9
    records = dmesg.parse(text, "s")
    assert _xids(records) == [(48, "0000:07:00.0", "s:4"), (64, "0000:07:00.0", "s:5")]
    assert "physAddr 0x7fffa8860 partition 7, subpartition 1." in records[0].message
    assert len(records) == 2  # RmInitAdapter failures on 0a:00.0 are not Xids


def test_dmesg_xid43_31_94_on_three_gpus():
    records = dmesg.parse(_text("dmesg_xid43_31_94_akash244.txt"), "d")
    assert [(x, b) for x, b, _ in _xids(records)] == [
        (43, "0000:00:05.0"), (43, "0000:00:05.0"), (31, "0000:00:07.0"), (94, "0000:00:08.0")]
    assert "MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_8" in records[2].message
    assert records[3].message.endswith("Contained: SM (0x1). RST: No, D-RST: No")


def test_dmesg_three_line_fallen_off_bus_without_xid():
    text = _text("dmesg_fallen_off_bus_multiline_nvsentinel155.txt")
    assert dmesg.detect(text) > 0.9
    (note,) = dmesg.parse(text, "d")
    assert (note.kind, note.source, note.data) == ("gpu_fallen_off_bus", "d:1", {"bus_id": "0000:b3:00.0"})
    assert "fallen off the bus and is not responding to commands." in note.text


def test_kmsg_nvlink_xids_and_the_xid45_they_cause():
    records = dmesg.parse(_text("kmsg_xid45_after_nvlink_xid149_145.txt"), "k")
    assert [x for x, _, _ in _xids(records)] == [45] * 7
    assert sorted({b for _, b, _ in _xids(records)}) == ["0000:97:00.0", "0000:ba:00.0", "0000:dc:00.0", "0000:ed:00.0"]
    assert records[0].message.endswith("caused by previous Xid 149")
    records = dmesg.parse(_text("kmsg_xid149_145_nvlink_gpud1174.txt"), "n")
    assert _xids(records) == [(149, "0019:01:00.0", "n:1"), (149, "0000:00:00.0", "n:2"), (145, "0018:01:00.0", "n:3")]


# --------------------------------------------------------------------------- p2pBandwidthLatencyTest


def _cells(records, direction, enabled, unit="GB/s"):
    return {(r.a, r.b): r.value for r in records
            if isinstance(r, PairBandwidth) and (r.direction, r.p2p_enabled, r.unit) == (direction, enabled, unit)}


def test_p2p_two_rtx5090_without_peer_access():
    records = p2p_test.parse(_text("p2p_bandwidth_2x_rtx5090_no_peer_access.txt"), "p")
    gpus = _of(records, GpuFact)
    assert [(g.index, g.name, g.bus_id) for g in gpus] == [
        (0, "NVIDIA Graphics Device", "0000:21:00.0"), (1, "NVIDIA Graphics Device", "0000:61:00.0")]
    assert [(s.a, s.b, s.status, s.ok) for s in _of(records, P2PStatus)] == [(0, 1, "CANNOT", False),
                                                                             (1, 0, "CANNOT", False)]
    assert _cells(records, "uni", False) == {(0, 1): 38.24, (1, 0): 38.92}
    assert _cells(records, "uni", True) == {(0, 1): 38.20, (1, 0): 38.66}  # "enabled" yet no faster: no P2P
    assert _cells(records, "bi", True) == {(0, 1): 43.19, (1, 0): 42.78}
    assert _cells(records, "uni", True, "us") == {(0, 1): 12.76, (1, 0): 12.87}  # GPU block, not CPU block
    assert len(_of(records, PairBandwidth)) == 12  # 6 matrices x 2 off-diagonal cells


def test_p2p_eight_a100_nvlink_unidirectional():
    records = p2p_test.parse(_text("p2p_bandwidth_8x_a100_nvlink_uni.txt"), "p")
    cells = _cells(records, "uni", True)
    assert len(cells) == 56 and len(records) == 56  # 8x7 pairs, diagonal (GPU to itself) left out
    assert (cells[(0, 1)], cells[(3, 2)], cells[(7, 6)]) == (274.55, 272.12, 272.24)
    assert min(cells.values()) == cells[(5, 3)] == 270.84 and max(cells.values()) == cells[(2, 1)] == 276.90
    assert records[0].source == "p:5"


# --------------------------------------------------------------------------- topo -p2p / topo -m


@pytest.mark.parametrize("name", ["topo_p2p_rw_2x_rtx5090_gns_tabs.txt", "topo_p2p_rw_2x_rtx5090_gns_spaces.txt"])
def test_topo_p2p_gpu_not_supported(name):
    (status,) = topo.parse(_text(name), "t")
    assert (status.a, status.b, status.status, status.ok, status.source) == (0, 1, "GNS", False, "t:2")
    assert status.capability == "unknown"  # no `topo -p2p rw` command line in the paste


def test_topo_m_two_gpus_behind_one_host_bridge():
    records = topo.parse(_text("topo_m_2x_rtx5090_phb.txt"), "t")
    (path,) = [r for r in records if not isinstance(r, GpuFact)]
    assert (path.a, path.b, path.path, path.nvlinks) == ("GPU0", "GPU1", "PHB", 0)
    assert [(g.index, g.cpu_affinity, g.numa_node) for g in _of(records, GpuFact)] == [(0, "0-63", 0), (1, "0-63", 0)]


# --------------------------------------------------------------------------- nvidia-smi nvlink


def test_nvlink_status_eight_a100_twelve_links_each():
    records = named(nvlink.parse(_text("nvlink_s_a100_sxm4_x8.txt"), "n"))
    gpus = _of(records, GpuFact)
    assert [g.index for g in gpus] == list(range(8)) and {g.catalog_key for g in gpus} == {"a100-80gb-sxm"}
    assert gpus[7].uuid == "GPU-754035b4-4708-efcd-b261-623aea38bcad"
    links = _of(records, NvLinkFact)
    assert len(links) == 96 and all(l.active and l.speed_gbs == 25.0 for l in links)
    assert (links[-1].gpu, links[-1].link, links[-1].source) == (7, 11, "n:104")


def test_nvlink_error_counters_without_status():
    records = named(nvlink.parse(_text("nvlink_e_h100_counters.txt"), "e"))
    (gpu,) = _of(records, GpuFact)
    assert (gpu.name, gpu.catalog_key, gpu.uuid) == ("NVIDIA H100 80GB HBM3", "h100-sxm",
                                                     "GPU-abcdefab-cdef-abdc-abcd-abababababab")
    assert not _of(records, NvLinkFact)  # -e alone does not say whether a link is up
    notes = _of(records, Note)
    assert [(n.kind, n.data["link"], n.source) for n in notes] == [
        ("nvlink_errors", 0, "e:3"), ("nvlink_errors", 1, "e:7"), ("nvlink_errors", 17, "e:13")]
    assert all(n.data["errors"] == {"replay": 0, "recovery": 0, "crc": 0} for n in notes)


def test_nvlink_all_links_inactive_with_redacted_uuid():
    gpu, note = named(nvlink.parse(_text("nvlink_s_b200_all_links_inactive.txt"), "b"))
    # `(UUID: GPU-xxx)` is a redaction, not part of the name and not a UUID.
    assert (gpu.index, gpu.name, gpu.uuid, gpu.catalog_key) == (2, "NVIDIA B200", None, "b200")
    assert (note.kind, note.data, note.source) == ("nvlink_all_inactive", {"gpu": 2}, "b:2")


# --------------------------------------------------------------------------- --query-gpu CSV


def test_query_gpu_csv_tesla_p100():
    text = _text("smi_csv_tesla_p100.csv")
    assert smi_csv.detect(text) > 0.8
    (gpu,) = smi_csv.parse(text, "c")
    assert (gpu.source, gpu.name, gpu.uuid) == ("c:2", "Tesla P100-PCIE-16GB",
                                                "GPU-ef1b2c9b-38d8-2090-2bd1-f567a3eb42a6")
    assert (gpu.utilization_pct, gpu.temperature_c, gpu.power_draw_w, gpu.sm_clock_mhz) == (0, 37.0, 28.16, 405.0)
    assert gpu.pcie_read_under_load is None  # no PCIe columns in this query
