"""scaling, plan and capture price a TP all-reduce over the ring route their inputs state, through the one function
the ticket path uses (rules.topology.ring_route): the worst `nvidia-smi topo -m` path among GPUs 0..tp-1 and the CPU
link NCCL gives the host's CPUs (NVIDIA/nccl src/graph/topo.h AMD_BW 16 GB/s, Intel SRP 22; src/graph/search.cc: a
compute capability 10.0+ GPU's search tries down to 18 GB/s, else falls back to 0.1 GB/s and the tuner takes Simple;
https://github.com/NVIDIA/nccl/tree/master/src/graph).

Inputs, all real:
- tests/data/ut14/sglang7070_env_topo.md: 4x RTX 6000 Ada, GPU0-GPU1 and GPU2-GPU3 NODE, the pairs SYS to each other
  (https://github.com/sgl-project/sglang/issues/7070);
- tests/data/ut14/trtllm2140.md: a reporter's "48t AMD EPYC 7R13 CPU" (https://github.com/NVIDIA/TensorRT-LLM/issues/2140);
  the two are composed here as one machine's topology and CPU (a route no single public report states);
- the nsys captures' TARGET_INFO_SYSTEM_ENV CpuDescription (samples/captures: "Intel(R) Xeon(R) Platinum 8480+";
  ../shared/captures: "Intel(R) Xeon(R) Platinum 8480C", "Intel(R) Xeon(R) CPU E5-2678 v3").
"""

import pytest
from conftest import REPO, diagnose, report_json, shared_path

from diagnose.bundle import read_bundle
from rules.topology import ring_route

UT14 = REPO / "tests" / "data" / "ut14"
TOPO, CPU = UT14 / "sglang7070_env_topo.md", UT14 / "trtllm2140.md"
PLAN = ("plan", "--model", "llama-3-8b", "--gpu", "rtx-pro-6000-blackwell", "--gpus", "4", "--context", "4096",
        "--concurrency", "64")


def test_route_from_a_pasted_topology_and_a_named_cpu():
    facts = read_bundle([TOPO, CPU])
    assert ring_route(facts, 4) == {"ring_path": "sys", "ring_cpu": "amd"}  # GPU0-GPU2 cross the sockets
    assert ring_route(facts, 2) == {"ring_path": "node", "ring_cpu": "amd"}  # GPU0-GPU1 stay in one
    assert ring_route(read_bundle([TOPO]), 4) == {"ring_path": "sys", "ring_cpu": ""}  # no CPU named
    assert ring_route(None, 4) == {"ring_path": "", "ring_cpu": ""}


@pytest.mark.parametrize("capture, cpu", [
    (("captures", "fuser_h100x8node_matmul_2024_6.sqlite"), "intel-srp"),  # Xeon Platinum 8480C: Sapphire Rapids
    (("captures", "memfusion_rtx3090x4_trt_2023_1.sqlite"), ""),  # Xeon E5-2678 v3 (Haswell): no class listed
])
def test_a_capture_names_its_hosts_cpu(capture, cpu):
    """The capture's own CpuDescription is the machine's CPU (a HostFact, read before any reporter's words)."""
    facts = read_bundle([shared_path(*capture)])
    assert facts.host("cpu_model").value.startswith("Intel(R) Xeon(R)")
    assert ring_route(read_bundle([TOPO, shared_path(*capture)]), 4)["ring_cpu"] == cpu


def plan_report(*extra) -> dict:
    return report_json(*PLAN, *extra)["predictions"]["plan"]


def plan_options(*extra) -> dict:
    return {o["label"]: o for o in plan_report(*extra)["options"]}


def test_plan_prices_each_tp_over_the_route_its_node_files_show():
    """Worked example: Llama 3 8B on 4x RTX PRO 6000 Blackwell, one sequence. TP4's ring crosses the AMD sockets
    (16 GB/s, under Blackwell's 18 GB/s search floor): NCCL falls back to Simple, 21.41 us per 8,192-byte all-reduce
    against LL's 15.88 in one socket (tests/test_predict_ring_path.py); 64 all-reduces a step (32 layers x 2) add
    64 x 5.53 us = 0.354 ms to the ITL. TP2 (GPU0-GPU1, NODE) and TP1 are priced as without the files."""
    before, after = plan_options(), plan_options("--node", TOPO, "--node", CPU)
    assert after["TP4 x DP1"]["itl_ms_one"] - before["TP4 x DP1"]["itl_ms_one"] == pytest.approx(0.354, abs=0.002)
    for label in ("TP2 x DP2", "TP1 x DP4"):
        assert after[label]["itl_ms_one"] == before[label]["itl_ms_one"]


def test_scaling_takes_the_route_from_node_files_and_says_so():
    """A --node file holding only a topology matrix is read for the route (before: refused as holding no
    measurements); each layout's all-reduce names the route it was priced over."""
    table = REPO / "tests" / "data" / "published" / "vllm-issue6955-4x-rtx3090ti-llama-3.1-70b-awq-tp2-tp4-c1.csv"
    rep = report_json("scaling", table, "--node", TOPO, "--node", CPU)
    rows = {r["label"]: r for r in rep["predictions"]["scaling"]["rows"]}
    assert "ring path sys across amd CPUs" in rows["TP4"]["allreduce_ref_source"]
    assert "ring path node," in rows["TP2"]["allreduce_ref_source"]
    plain = {r["label"]: r for r in report_json("scaling", table)["predictions"]["scaling"]["rows"]}
    assert "ring path" not in plain["TP4"]["allreduce_ref_source"]


def test_scaling_still_refuses_a_node_file_with_neither_measurements_nor_topology():
    result = diagnose("scaling", REPO / "tests" / "data" / "scaling" / "gpt-fast-llama-2-7b-a100.csv", "--model",
                      "llama-2-7b", "--gpu", "a100-80gb-sxm", "--node", CPU)
    assert result.exit_code == 2 and "nor a topology" in result.stderr


def test_capture_prices_its_allreduce_over_the_route():
    """The capture's CPU (Xeon 8480+, Sapphire Rapids: 22 GB/s between sockets) and the pasted topology: the ring
    crosses SRP's link, which clears Blackwell's 18 GB/s floor, so LL stays: 15.88 us as in one socket; the route
    the figure was priced over is in the prediction's assumptions."""
    rep = report_json("capture", REPO / "samples" / "captures" / "tp4_nvlink_healthy.sqlite", "--model", "llama-3-8b",
                      "--tp", "4", "--gpu", "rtx-pro-6000-blackwell", "--batch", "1", "--node", TOPO)
    assert rep["predictions"]["roofline"]["assumptions"]["ring_route"] == {"path": "sys", "cpu": "intel-srp"}
    assert rep["predictions"]["expected"]["allreduce_us"] == pytest.approx(15.88, abs=0.01)


def test_plan_says_which_route_it_priced():
    steps = " ".join(plan_report("--node", TOPO, "--node", CPU)["steps"])
    assert "TP4 x DP1's all-reduce ring (GPUs 0-3) takes PCIe path sys across amd CPUs" in steps
    assert "all-reduce ring" not in " ".join(plan_report()["steps"])
