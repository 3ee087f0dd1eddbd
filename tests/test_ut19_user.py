"""Defects found by answering real public threads as a support engineer (session s19, tests/data/ut19; SOURCES.md
gives each thread's address and the verdict before and after), each fixed in general and tested here on the paste that
showed it and on another real sample or text written here (paraphrases, negations):

- a plain count before a GPU's name with plural machines after it counts the machines, not GPUs ("two A100 machines",
  NVIDIA/nccl#495; "6 A100 (80G) machines", NVIDIA/nccl-tests#169): both read as the GPUs of one node;
- NICs counted before the rate they share ("8 Roce NICs, all of which are 100Gb", NVIDIA/nccl-tests#169) are that many
  ports: the line rate was one NIC's 12.5 GB/s, and the measured 100 GB/s busbw was called "above the line rate";
- a load generator's request threads are its concurrency ("i set the 8 request threads", sgl-project/sglang#2246): the
  500 tok/s of 8 requests on a 70B at TP 8 was priced against batch 256 ("a small batch's throughput") instead of the
  8 the reporter ran;
- Open MPI's `mpirun -N k` (and --npernode, --map-by ppr:k:node, MPICH's -ppn) is processes per node, not nodes
  (NVIDIA/nccl#1454, `mpirun -np 300 -N 1 ... -g 8`: 2400 GPUs read as one node, the 14 GB/s busbw of 300 nodes judged
  against PCIe Gen5);
- nccl-tests on one rank reports busbw 0 by definition (busbw = algbw x 2(n-1)/n; NVIDIA/nccl-tests#249, one A10G):
  it was left insufficient_data, asking for `nvidia-smi -q`.

One found as the performance engineer: `diagnose predict` on a board without PCIe peer-to-peer (RTX 4090) said NCCL
stages the all-reduce through host memory but not the SHM busbw it priced, nor that the host's link was assumed PCIe
Gen3 for want of a host CPU: the note now gives the figure, the shares it multiplies and the assumption.

And one found as the ops engineer: `diagnose ticket` given only an empty file answered a full report (exit 0) where
`capture` refuses one; an empty file beside others, or in a folder, is still listed (tests/test_cli_contract.py).
"""

from pathlib import Path

from conftest import diagnose, report_json

from diagnose.artifacts import issue_md, launch
from diagnose.evidence import Workload
from rules.common import _rate_from_text

DATA = Path(__file__).parent / "data" / "ut19"


def report(path) -> dict:
    return report_json("ticket", str(path))


def finding(r: dict, rule: str) -> dict | None:
    return next((f for f in r["findings"] if f["rule"] == rule), None)


def sized(text: str) -> list[tuple]:
    """(gpu, gpu_count, nodes) of each workload the prose states a GPU or a count for."""
    return [(w.gpu, w.gpu_count, w.nodes) for w in issue_md.parse(text, "issue.md")
            if isinstance(w, Workload) and (w.gpu or w.gpu_count or w.nodes)]


# --------------------------------------------------------------------------- machines counted before a GPU's name

def test_machines_counted_before_the_gpu_are_nodes_not_gpus():
    r = report(DATA / "nccl495.md")  # "I use nccl-tests on two A100  machines, each machine has 8 *100 Gbps ..."
    ws = [w for w in r["facts"]["workload"] if w["gpu"] == "A100"]
    assert ws and ws[0]["nodes"] == 2 and ws[0]["gpu_count"] is None
    cov = finding(r, "workload.evidence_coverage")
    assert cov is None or not any(e["detail"] == "GPUs working together in a node" and e["measured"] == 2
                                  for e in cov["evidence"])
    # the GPUs each machine holds, said in the same sentence, make the job's total
    r = report(DATA / "ncclt169.md")  # "6 A100 (80G) machines (each with 8 A100 cards)"
    ws = [w for w in r["facts"]["workload"] if w["gpu"] and w["gpu"].startswith("A100")]
    assert (ws[0]["nodes"], ws[0]["gpu_count"]) == (6, 48)


def test_machines_counted_paraphrases_and_negations():
    assert sized("We run vLLM on 4 H100 servers with Llama-3-70B.") == [("H100", None, 4)]
    # a multiplier counts each node's GPUs (unchanged), a count of GPUs in one machine stays a GPU count
    assert sized("We run vLLM on two 8x H100 nodes.")[0][1:] == (16, 2)
    assert sized("We run vLLM on two A100 GPUs in one machine.")[0] == ("A100", 2, None)
    assert sized("I have 4 RTX 4090 cards.")[0][:2] == ("RTX 4090", 4)
    # a count joined to its noun by a hyphen is each machine's size: "2x 8-GPU servers" are 2 nodes of 8
    # (tests/test_ticket_prose_reading.py's form)
    assert sized("We run vLLM on 2x 8-GPU servers with InfiniBand.")[0][1:] == (16, 2)


# --------------------------------------------------------------------------- NICs counted before their shared rate

def test_nic_count_before_the_rate_multiplies_it():
    r = report(DATA / "ncclt169.md")
    bus = finding(r, "nccl.busbw")
    line = next(e for e in bus["evidence"] if e["detail"].startswith("NIC line rate"))
    assert line["measured"] == 100.0 and "8 Roce NICs" in line["detail"]  # 8 x 100 Gb/s, the quote saying so
    assert bus["title"] != "Bus bandwidth above the line rate: not an error"
    assert _rate_from_text("four ConnectX-7 NICs at 400Gb/s") == 200.0
    assert _rate_from_text("2 HCAs, each 200 Gbps") == 50.0
    # negations: one NIC of several named with its own rate; GPUs, not NICs, counted; a count in another sentence
    assert _rate_from_text("2 NICs, one at 100Gb") == 12.5
    assert _rate_from_text("8 GPUs and 100Gb RoCE") == 12.5
    assert _rate_from_text("We have 8 NICs. The uplink is 100Gb") == 12.5
    # the earlier forms keep their reading
    assert _rate_from_text("8x 400G RoCE") == 400.0 and _rate_from_text("two 200G ports") == 50.0


# --------------------------------------------------------------------------- request threads are the concurrency

def test_request_threads_are_the_load():
    r = report(DATA / "sglang2246.md")
    assert r["verdict"]["category"] == "expected_physics"
    rate = finding(r, "ticket.batched_rate")
    assert rate["category"] == "expected_physics"
    assert any("8 concurrent requests" in e["detail"] for e in rate["evidence"])


def test_request_threads_paraphrases_and_negations():
    def load(text):
        return [w.concurrency for w in issue_md.parse(text, "issue.md") if isinstance(w, Workload) and w.concurrency]

    assert load("The benchmark uses 16 client threads against Llama-3-8B on an H100.") == [16]
    assert load("JMeter with 32 threads sending requests to the vLLM server.") == [32]
    # a CPU's threads, a llama.cpp option, threads per core: no load
    assert load("llama.cpp with --threads 8 on a 32-core CPU, 64 CPU threads.") == []
    assert load("The server has 2 threads per core.") == []


# --------------------------------------------------------------------------- mpirun's processes per node

def _launch_nodes(line: str) -> tuple:
    ws = [w for w in launch.parse(line, "cmd.txt") if isinstance(w, Workload) and (w.nodes or w.gpu_count)]
    return ws[0].nodes, ws[0].gpu_count


def test_mpirun_processes_per_node_give_the_nodes():
    r = report(DATA / "nccl1454.md")  # mpirun -np 300 -N 1 ... all_reduce_perf ... -g 8
    assert any(w["nodes"] == 300 and w["gpu_count"] == 2400 for w in r["facts"]["workload"])
    assert finding(r, "nccl.busbw") is None or "PCIe" not in finding(r, "nccl.busbw")["title"]
    assert r["verdict"]["category"] == "insufficient_data"
    assert finding(r, "nccl.gdr")["category"] == "insufficient_data"  # the NCCL_DEBUG=INFO NET lines, as asked
    # other launchers' spellings
    assert _launch_nodes("mpirun -np 16 --npernode 8 ./build/all_reduce_perf -b 8 -e 8G -g 1") == (2, 16)
    assert _launch_nodes("mpirun -np 16 --map-by ppr:8:node ./build/all_reduce_perf -g 1") == (2, 16)
    assert _launch_nodes("srun -N 4 --ntasks=32 ./build/all_reduce_perf -b 8 -e 8G -g 1")[0] == 4


def test_mpirun_without_a_per_node_count_keeps_its_hosts():
    assert _launch_nodes("mpirun -np 2 -H a,b ./build/all_reduce_perf -b 8 -e 8G -g 1") == (2, 2)
    assert _launch_nodes("mpirun -np 8 ./build/all_reduce_perf -b 8 -e 8G -g 1") == (None, 8)


# --------------------------------------------------------------------------- nccl-tests on one rank

def test_one_rank_nccl_tests_has_no_bus_bandwidth():
    r = report(DATA / "ncclt249.md")
    one = finding(r, "nccl.one_rank")
    assert one and one["category"] == "expected_physics"
    assert all(e["measured"] == 1 for e in one["evidence"])
    assert r["verdict"]["category"] == "expected_physics"


def test_two_ranks_are_not_one(tmp_path):
    r = report(DATA / "ncclt232.md")  # mpirun -np 2 ... -g 1: two ranks on two nodes
    assert finding(r, "nccl.one_rank") is None
    # a launch naming one GPU per process but not its processes, on two machines (NVIDIA/nccl#307's form)
    (tmp_path / "issue.md").write_text(
        "nccl-tests only achieves about 20 GB/s between our two machines over InfiniBand.\n\n"
        "running broadcast_perf on 2 machines:\n\n```\nmpiexec -f hosts ./build/broadcast_perf -b 1M -e 2048M "
        "-f 2 -g 1 -c 0\n```\n")
    assert finding(report(tmp_path), "nccl.one_rank") is None


# --------------------------------------------------------------------------- bad input

def test_ticket_given_only_an_empty_file_is_bad_input(tmp_path):
    empty = tmp_path / "issue.md"
    empty.write_text("")
    result = diagnose("ticket", empty)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == f"diagnose: {empty}: empty file (0 bytes), nothing to read"
    # beside a real paste it is one attachment among others, listed as empty
    r = report_json("ticket", str(empty), str(DATA / "ncclt249.md"))
    assert r["verdict"]["category"] == "expected_physics"


# --------------------------------------------------------------------------- the SHM figure's source in predict

def test_predict_states_the_shm_figure_and_its_source():
    r = report_json("predict", "--model", "llama-3-8b", "--gpu", "rtx-4090", "--tp", "2")
    note = next(t["note"] for t in r["tables"].values() if t.get("note", "").startswith("Expected figures"))
    assert "SHM busbw 2.6 GB/s = 0.702 x the host's copy between GPUs 3.7 GB/s" in note
    assert "PCIe Gen3 x16 15.75 GB/s to host memory, assumed: no host CPU given" in note
    assert "rules/catalog/calibration.toml [nccl]" in note
    # a board with peer-to-peer (NVLink) has no SHM figure to explain
    r = report_json("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "8")
    note = next(t["note"] for t in r["tables"].values() if t.get("note", "").startswith("Expected figures"))
    assert "SHM" not in note
