"""The default `nvidia-smi` table as reporters paste it (session s30, smi30, issue 11): memory used and total,
GPU-Util and the Processes rows read field by field on real pastes of drivers 440 to 610
(tests/data/smi30/SOURCES.md), and the one answer an expert gives from the table alone: a serving engine's GPUs
nearly full at no utilisation, with the reporter asking about memory, is the engine's start-up KV-cache reservation
(ticket.explained), never where the ticket is about a hang or OOM, the engine reserves nothing, the model is unknown,
or the memory in use is no more than the weights (a quantised model that fills the card)."""

from pathlib import Path

import pytest
from conftest import finding, report_json

from diagnose.artifacts import smi_table
from diagnose.bundle import read_bundle
from diagnose.evidence import GpuFact, HostFact
from rules import ticket_rules
from rules.subject import Subject

DATA = Path(__file__).parent / "data" / "smi30"


def parsed(name: str):
    text = (DATA / name).read_text()
    assert smi_table.detect(text) >= 0.9
    records = smi_table.parse(text, name)
    host = {r.name: r.value for r in records if isinstance(r, HostFact)}
    return host, [r for r in records if isinstance(r, GpuFact)]


# (file, driver, CUDA, [(index, name, used MiB, total MiB, GPU-Util %)])
TABLES = [
    ("tgi926.md", "525.105.17", "12.0", [(0, "NVIDIA A100-SXM...", 79645, 81920, 0)]),
    ("tgi1051.md", "535.104.05", "12.2", [(0, "NVIDIA A100 80GB PCIe", 79953, 81920, 0)]),
    ("tgi1824.md", "545.29.06", "12.3", [(0, "NVIDIA A100-PCIE-40GB", 37625, 40960, 0),
                                         (1, "NVIDIA A100-PCIE-40GB", 37633, 40960, 0)]),
    ("deepseekcoder29.md", "550.90.07", "12.4", [(0, "NVIDIA A100 80GB PCIe", 59109, 81920, 2),
                                                 (1, "NVIDIA A100 80GB PCIe", 59109, 81920, 0)]),
    ("rlinf255.md", "550.163.01", "12.4", [(0, "NVIDIA GeForce RTX 4090", 507, 24564, 0),
                                           (1, "NVIDIA GeForce RTX 4090", 459, 24564, 0)]),
    ("vllmomni6946.md", "580.126.20", "13.0", [(0, "NVIDIA A100-PCIE-40GB", 31956, 40960, 0)]),
    ("ollama9472.md", "550.120", "12.4", [(0, "NVIDIA GeForce RTX 3060", 7400, 12288, 98),
                                          (1, "NVIDIA RTX A2000 12GB", 8072, 12282, 0)]),
    ("vllm7768.md", "535.104.05", "12.2", [(0, "NVIDIA GeForce RTX 4090", 14214, 24564, 0)]),
    ("club3090_92.md", "580.142", "13.0", [(0, "NVIDIA GeForce RTX 3090", 24058, 24576, 0),
                                           (1, "NVIDIA GeForce RTX 3090", 24058, 24576, 0)]),
    # the 610 banner: "KMD Version: 610.57.04     CUDA UMD Version: 13.3" (read as no driver before smi30)
    ("club3090_1107.txt", "610.57.04", "13.3", [(0, "NVIDIA GeForce RTX 5090", 29428, 32607, 0),
                                                (1, "NVIDIA GeForce RTX 5090", 30347, 32607, 0)]),
    ("club3090_1128.txt", "595.84", "13.2", [(0, "NVIDIA GeForce RTX 3090", 22598, 24576, 10),
                                             (1, "NVIDIA GeForce RTX 3090", 24006, 24576, 0)]),
    # driver 530's own layout: no space between a cell and the next '|' ("Off|", "300W|")
    ("ultra31.txt", "530.30.02", "12.1", [(0, "NVIDIA A10G", 1354, 23028, 0), (1, "NVIDIA A10G", 2, 23028, 0)]),
    ("tgi1156.txt", "535.104.05", "12.2", [(0, "GRID A100D-20C", 4433, 20480, 0)]),
    ("tgi2671.txt", "555.42.06", "12.5", [(0, "NVIDIA A10G", 2880, 23028, 7)]),
    ("k8svgpu7.txt", "440.64.00", "10.2", [(0, "Tesla V100-SXM2...", 112, 16160, 0)]),
    ("oneflow_titanv_440.txt", "440.64", "10.2", [(6, "TITAN V", 4941, 12066, 76), (7, "TITAN V", 981, 12066, 9)]),
    # GB10 (unified memory): the memory cell says "Not Supported"
    ("obrienlabs_gb10.txt", "580.95.05", "13.0", [(0, "NVIDIA GB10", None, None, 10)]),
]


@pytest.mark.parametrize("name,driver,cuda,gpus", TABLES, ids=[t[0] for t in TABLES])
def test_table_rows_field_by_field(name, driver, cuda, gpus):
    host, records = parsed(name)
    assert host["driver_version"] == driver and host["cuda_driver_version"] == cuda
    got = [(g.index, g.name, g.memory_used_mib, g.memory_total_mib, g.utilization_pct) for g in records]
    assert got == [(i, n, None if u is None else float(u), None if t is None else float(t), float(p))
                   for i, n, u, t, p in gpus]


def test_process_rows_of_the_580_layout():
    """Driver 580: GI and CI N/A, a PID column as wide as a 7-digit PID, graphics processes (G), a name cut with
    '...'."""
    _, (gpu,) = parsed("obrienlabs_gb10.txt")
    assert gpu.processes == [
        {"pid": 4174, "type": "G", "name": "/usr/lib/xorg/Xorg", "memory_mib": 84.0},
        {"pid": 4399, "type": "G", "name": "/usr/bin/gnome-shell", "memory_mib": 125.0},
        {"pid": 4761, "type": "G", "name": ".../7182/usr/lib/firefox/firefox", "memory_mib": 273.0},
    ]


def test_process_rows_of_both_layouts_land_on_their_gpu():
    """Driver 470+ rows ('6 N/A N/A 8897<TAB> C python3 4929MiB') and the earlier ones ('6 9335 C python3 9311MiB')."""
    _, gpus = parsed("oneflow_titanv_440.txt")
    by_index = {g.index: [(p["pid"], p["type"], p["name"], p["memory_mib"]) for p in g.processes] for g in gpus}
    assert by_index == {6: [(8897, "C", "python3", 4929.0), (9335, "C", "python3", 9311.0)],
                        7: [(8897, "C", "python3", 969.0), (9335, "C", "python3", 4499.0)]}


def test_no_running_processes_is_no_process():
    _, (gpu,) = parsed("k8svgpu7.txt")
    assert gpu.processes == []


# --------------------------------------------------------------------------- the engine's reservation, from the table


def test_tgi_full_gpu_at_no_utilisation_is_the_reservation():
    """huggingface/text-generation-inference#926: Llama-2-13b under TGI, 79645 of 81920 MiB at 0 %; the maintainers'
    answer in the TGI threads is that TGI takes the memory for its batch-token budget (--cuda-memory-fraction).
    Before smi30: healthy with no reason given; after: the reservation, with the table's figures against the
    weights."""
    r = report_json("ticket", str(DATA / "tgi926.md"))
    assert r["verdict"]["category"] == "healthy"
    lead = finding(r, "ticket.explained")
    assert lead is not None and lead["title"] == "Each GPU's memory is filled by design"
    gpu = next(e for e in lead["evidence"] if "GPU 0" in e["detail"])
    # 13.0 B parameters x 2 bytes = 24825 MiB of 16-bit weights on the one GPU
    assert gpu["measured"] == 79645.0 and 24000 < gpu["expected"] < 25500 and gpu["unit"] == "MiB"
    assert "cuda-memory-fraction" in lead["fix"]


@pytest.mark.parametrize("name", [
    "deepseekcoder29.md",  # vLLM, but the GPUs are 72 % full and the question is a freeze
    "rlinf255.md",         # torch.OutOfMemoryError: a failure, not a reservation
    "vllmomni6946.md",     # vLLM-Omni taking *less* than asked (78 % of the card)
    "vllm7768.md",         # vLLM taking too little (58 %)
    "ollama9472.md",       # Ollama (llama.cpp) reserves nothing
    "tgi1824.md",          # TGI full at 0 %, but no model named: the weights cannot be compared
    "club3090_92.md",      # vLLM full at 0 %, but a recipe with no question about memory
])
def test_near_misses_are_not_read_as_the_reservation(name):
    r = report_json("ticket", str(DATA / name))
    lead = finding(r, "ticket.explained")
    assert lead is None or lead["title"] != "Each GPU's memory is filled by design"


def _facts(name: str):
    facts = read_bundle([DATA / name])
    facts.subject = Subject.of(facts)
    return facts


def test_memory_no_more_than_the_weights_is_not_a_reservation():
    """noonghunna/club-3090#92: qwen3.6-27b on two 3090s, 24058 of 24576 MiB at 0 %: full and idle, but 24 GB is
    less than the 27B's 16-bit weights (a quantised model fills the card), so the table alone says nothing."""
    facts = _facts("club3090_92.md")
    assert facts.subject.model is not None
    assert ticket_rules._idle_reservation(facts) == []
    assert ticket_rules._idle_reservation(_facts("tgi926.md"))
