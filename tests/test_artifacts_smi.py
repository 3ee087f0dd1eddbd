"""nvidia-smi -q (text and XML) and the plain nvidia-smi table.

No ticket in ../shared/tickets carries `nvidia-smi -q`. STAND-INS: smi_q_h100.txt and
smi_qx_a100.xml in tests/data/hardware/ were written by hand after the layout of driver 550 (text)
and 525 (XML) output; they are kept for cases no public sample shows (a full H100 -q with fabric,
HW-slowdown throttling, a Gen3 x8 link with replays). Real public -q / -q -x output is tested in
test_artifacts_real_public.py (tests/data/hardware/real/, sources in SOURCES.md there).
"""

import re
from pathlib import Path

from conftest import named, shared_path

from diagnose.artifacts import smi_query, smi_table
from diagnose.evidence import GpuFact, HostFact

DATA = Path(__file__).parent / "data" / "hardware"


def _gpus(records):
    return [r for r in records if isinstance(r, GpuFact)]


def _host(records):
    return {r.name: r.value for r in records if isinstance(r, HostFact)}


def test_query_text_loaded_and_idle_gpu():
    text = (DATA / "smi_q_h100.txt").read_text()
    assert smi_query.detect(text) > 0.9
    records = named(smi_query.parse(text, "q.txt"))
    assert _host(records) == {"driver_version": "550.54.15", "cuda_driver_version": "12.4"}
    busy, idle = _gpus(records)
    assert (busy.index, busy.bus_id, busy.pci_device_id, busy.catalog_key) == (0, "0000:18:00.0", "0x2330", "h100-sxm")
    assert (busy.pcie_gen_current, busy.pcie_gen_max, busy.pcie_width_current, busy.pcie_width_max) == (5, 5, 16, 16)
    assert busy.pcie_read_under_load is True and busy.utilization_pct == 97
    assert busy.clock_event_reasons == ["sw_power_cap"]
    assert (busy.power_draw_w, busy.power_limit_w, busy.temperature_c) == (689.41, 700.0, 61.0)
    assert (busy.sm_clock_mhz, busy.sm_clock_max_mhz) == (1755.0, 1980.0)
    assert (busy.fabric_state, busy.fabric_status, busy.virtualization_mode) == ("Completed", "Success", "None")
    assert busy.persistence_mode is True and busy.mig_mode is False and busy.ecc_mode is True
    assert busy.source == "q.txt:8"  # the "GPU 00000000:18:00.0" line
    # GPU1 shows Gen1 of Gen5 while idle: the reading is flagged as taken at idle.
    assert (idle.index, idle.bus_id, idle.pcie_gen_current, idle.pcie_gen_max) == (1, "0000:2a:00.0", 1, 5)
    assert idle.pcie_read_under_load is False and idle.clock_event_reasons == ["idle"]
    assert (idle.ecc_uncorrected_volatile, idle.ecc_corrected_volatile) == (1, 2)
    assert idle.remapped_rows_pending is True and idle.remapped_rows_failure is False


def test_query_xml_throttled_passthrough_gpu():
    text = (DATA / "smi_qx_a100.xml").read_text()
    assert smi_query.detect(text) > 0.9
    records = named(smi_query.parse(text, "q.xml"))
    assert _host(records)["driver_version"] == "525.125.06"
    (gpu,) = _gpus(records)
    assert gpu.index is None  # `-i 3` printed one GPU of 8: its position is not its index
    assert (gpu.name, gpu.bus_id, gpu.pci_device_id) == ("NVIDIA A100-SXM4-80GB", "0000:47:00.0", "0x20b2")
    assert gpu.catalog_key == "a100-80gb-sxm"
    assert (gpu.pcie_gen_current, gpu.pcie_gen_max, gpu.pcie_width_current, gpu.pcie_width_max) == (3, 4, 8, 16)
    assert gpu.pcie_read_under_load is True and gpu.pcie_replay_counter == 12
    assert gpu.clock_event_reasons == ["hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown"]
    assert (gpu.temperature_c, gpu.temperature_slowdown_c) == (86.0, 89.0)
    assert (gpu.power_draw_w, gpu.power_limit_w) == (312.57, 400.0)
    assert gpu.virtualization_mode == "Pass-Through" and gpu.fabric_state is None
    assert gpu.source == "q.xml:9"  # the <gpu id=...> line, after the prompt


def test_query_xml_cut_off_keeps_what_was_read():
    text = (DATA / "smi_qx_a100.xml").read_text()
    cut = text[: text.index("<temperature>")]
    (gpu,) = _gpus(smi_query.parse(cut, "q.xml"))
    assert gpu.pcie_width_current == 8 and gpu.temperature_c is None


def test_query_text_variants():
    text = (DATA / "smi_q_h100.txt").read_text()
    flat = "\n".join(line.strip() for line in text.splitlines())  # indentation lost
    _, idle = _gpus(smi_query.parse(flat, "q"))
    assert (idle.pcie_gen_current, idle.pcie_gen_max, idle.pcie_width_current) == (1, 5, 16)
    assert idle.clock_event_reasons == ["idle"] and idle.mig_mode is False and idle.utilization_pct == 0
    ranks = "\n".join(f"[1,0]<stdout>:{line}" for line in text.replace("    ", "\t").splitlines())
    busy, _ = _gpus(smi_query.parse("$ nvidia-smi -q\r\n" + ranks.replace("\n", "\r\n"), "q"))
    assert (busy.pcie_gen_current, busy.power_limit_w, busy.source) == (5, 700.0, "q:9")
    # cut after GPU0's PCI block: one GPU of two, so no index is claimed
    cut = text[: text.index("Fan Speed")]
    (gpu,) = _gpus(smi_query.parse(cut, "q"))
    assert gpu.index is None and gpu.pcie_gen_current == 5 and gpu.pcie_read_under_load is None


def test_table_real_h100():
    text = shared_path("tickets", "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional", "attachment1.txt").read_text()
    assert smi_table.detect(text) > 0.9
    assert smi_query.detect(text) < 0.5
    records = named(smi_table.parse(text, "a1.txt"))
    # on a native Linux install nvidia-smi's own build is the driver's (a WSL 2 guest's differ: test_wsl2.py)
    assert _host(records) == {"driver_version": "550.54.15", "nvidia_smi_version": "550.54.15",
                              "cuda_driver_version": "12.4"}
    (gpu,) = _gpus(records)
    assert (gpu.index, gpu.name, gpu.bus_id, gpu.catalog_key) == (0, "NVIDIA H100 80GB HBM3", "0000:18:00.0",
                                                                  "h100-sxm")
    assert (gpu.temperature_c, gpu.power_draw_w, gpu.power_limit_w, gpu.memory_total_mib) == (28, 88, 700, 81559)
    assert (gpu.utilization_pct, gpu.compute_mode, gpu.persistence_mode, gpu.mig_mode) == (0, "Default", False, False)
    assert gpu.ecc_uncorrected_volatile == 0 and gpu.source == "a1.txt:8"
    assert gpu.pcie_read_under_load is None  # the table shows no PCIe link


def test_table_older_layout_truncated_name_and_several_gpus():
    real = shared_path("tickets", "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional", "attachment1.txt").read_text()
    rows = real.splitlines()[7:10]
    second = [r.replace("   0  ", "   1  ").replace("18:00.0", "2A:00.0").replace("28C", "71C").replace("  0%", " 98%")
              for r in rows]
    older = (
        "| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |\n"
        "|   0  NVIDIA A100-SXM...  On   | 00000000:07:00.0 Off |                    0 |\n"
        "| N/A   30C    P0    53W / 400W |      0MiB / 81251MiB |      0%      Default |\n"
    )
    text = real + "\n" + "\n".join(second) + "\n" + older
    gpus = _gpus(smi_table.parse(text, "t"))
    assert [(g.index, g.bus_id) for g in gpus] == [(0, "0000:18:00.0"), (1, "0000:2a:00.0"), (0, "0000:07:00.0")]
    assert (gpus[1].temperature_c, gpus[1].utilization_pct) == (71, 98)
    assert gpus[2].name == "NVIDIA A100-SXM..." and gpus[2].catalog_key is None  # cut name: no guess
    assert (gpus[2].power_draw_w, gpus[2].power_limit_w, gpus[2].persistence_mode) == (53, 400, True)


def test_table_variants_keep_values():
    real = shared_path("tickets", "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional", "attachment1.txt").read_text()
    for variant in (
        "$ nvidia-smi\n" + real.replace("\n", "\r\n"),
        "\n".join("[1,3]<stdout>:" + line for line in real.splitlines()),
        re.sub(r"(NVIDIA)", "\x1b[1m\\1\x1b[0m", real),
    ):
        (gpu,) = _gpus(smi_table.parse(variant, "t"))
        assert (gpu.bus_id, gpu.power_limit_w, gpu.memory_total_mib) == ("0000:18:00.0", 700, 81559)


def test_query_grep_fragments_without_gpu_lines():
    text = (DATA / "smi_q_h100.txt").read_text().splitlines()
    fragments = []
    for i, line in enumerate(text):
        if "PCIe Generation" in line:
            fragments += text[i : i + 3] + text[i + 6 : i + 9] + ["--"]
    grep = '$ nvidia-smi -q | grep -A8 "PCIe Generation"\n' + "\n".join(fragments)
    assert smi_query.detect(grep) > 0.5
    gpus = _gpus(smi_query.parse(grep, "g"))
    assert [(g.index, g.bus_id, g.pcie_gen_current, g.pcie_gen_max, g.pcie_width_current) for g in gpus] == [
        (None, None, 5, 5, 16), (None, None, 1, 5, 16)]
    assert gpus[1].source == "g:10" and gpus[1].pcie_read_under_load is None
