"""nvidia-smi --query-gpu CSV parser.

STAND-IN: no ticket carries a --query-gpu CSV; tests/data/hardware/smi_query_gpu.csv was written by
hand after driver 535 output. A real public CSV (Tesla P100) is tested in
test_artifacts_real_public.py (tests/data/hardware/real/).
"""

from pathlib import Path

from conftest import named

from diagnose.artifacts import smi_csv
from diagnose.evidence import GpuFact

QUERY = (Path(__file__).parent / "data" / "hardware" / "smi_query_gpu.csv").read_text()


def _gpus(records):
    return [r for r in records if isinstance(r, GpuFact)]


def test_header_csv_idle_and_loaded_readings():
    assert smi_csv.detect(QUERY) > 0.8
    idle, busy, narrow = _gpus(named(smi_csv.parse(QUERY, "q.csv")))
    assert (idle.index, idle.bus_id, idle.pci_device_id, idle.catalog_key) == (0, "0000:07:00.0", "0x20b2",
                                                                               "a100-80gb-sxm")
    assert (idle.pcie_gen_current, idle.pcie_gen_max, idle.pcie_read_under_load) == (1, 4, False)
    assert idle.clock_event_reasons == ["idle"] and idle.source == "q.csv:3"
    assert (busy.pcie_gen_current, busy.utilization_pct, busy.pcie_read_under_load) == (4, 100, True)
    assert (narrow.pcie_width_current, narrow.pcie_width_max, narrow.pcie_read_under_load) == (8, 16, True)


def test_noheader_uses_the_command_line_and_nothing_without_it():
    lines = QUERY.splitlines()
    noheader = lines[0].replace("--format=csv", "--format=csv,noheader,nounits") + "\n" + "\n".join(
        line.replace(" %", "") for line in lines[2:])
    gpus = _gpus(smi_csv.parse(noheader, "n"))
    assert [(g.index, g.pcie_gen_current, g.utilization_pct) for g in gpus] == [(0, 1, 0), (1, 4, 100), (2, 3, 87)]
    assert smi_csv.parse("\n".join(lines[2:]), "n") == []  # rows without names are not guessed


def test_other_csv_is_not_a_gpu_query():
    text = "model.name,tp,output_tok_s\nllama,8,1234\n"
    assert smi_csv.detect(text) == 0 and smi_csv.parse(text, "x") == []
