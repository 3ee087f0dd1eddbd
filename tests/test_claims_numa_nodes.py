"""NUMA nodes are not hosts (issue 11, batch u14a): `numactl --hardware` opens with "available: N nodes (a-b)" and
AMD's BIOS counts "NUMA nodes per socket" (NPS); neither may read as a job that spans machines, while a reporter's
"2 nodes, 16 GPUs" still does. Format: numactl(8), https://man7.org/linux/man-pages/man8/numactl.8.html."""

import subprocess
import sys

import pytest

from rules import claims

# numactl --hardware as pasted in public threads (their first lines, verbatim)
NUMACTL_PASTES = [
    # one node: https://unix.stackexchange.com/questions/92302/enabling-numa-for-intel-core-i7
    "$ numactl --hardware\navailable: 1 nodes (0)\nnode 0 cpus: 0 1 2 3 4 5 6 7\nnode 0 size: 16063 MB\n"
    "node 0 free: 15031 MB\nnode distances:\nnode   0 \n  0:  10 \n",
    # a dual-socket host with a CPU-offloaded MoE, kvcache-ai/ktransformers#896 (quoted in a ticket's prose)
    "(ktransformersv0.2) kimmy@kimmy-MS73-HB1-000:~$ numactl --hardware --cpu-compress\navailable: 2 nodes (0-1)\n"
    "node 0 cpus: 0-63 (64)\nnode 0 size: 386644 MB\n",
    # eight nodes in one line of prose (paraphrase of numactl's first line)
    "On this EPYC box numactl says available: 8 nodes (0-7), with memory on all of them.",
]


@pytest.mark.parametrize("text", NUMACTL_PASTES)
def test_numactl_node_count_is_no_multi_node_job(text):
    assert not claims.states("multi_node", text)


def test_nodes_per_socket_is_a_bios_numa_setting():
    # AMD's "NUMA nodes per socket" (NPS1/2/4) said without the word NUMA (paraphrase)
    assert not claims.states("multi_node", "The EPYC BIOS is set to NPS4, i.e. 4 nodes per socket.")


@pytest.mark.parametrize("text", [
    # https://github.com/NVIDIA/nccl/issues/1244 (a comment): a real two-machine job
    "Test in 2 nodes, 16 H20 GPUs ,16 cx7 NICs(IB NDR) with NCCL-2.21.5 + cuda-12.3",
    # https://github.com/NVIDIA/nccl-tests/issues/232
    "2 nodes allreduce test，1 H100 each node，using 4 nics，busbw is 50，theoretical busbw should be 200。",
    # a node count followed by a count in brackets is still a node count (paraphrase)
    "We run it across 2 nodes (8) with TP=16.",
])
def test_hosts_are_still_nodes(text):
    assert claims.states("multi_node", text)


def test_a_numactl_paste_asks_for_no_inter_node_log(tmp_path):
    """End to end: a single-host ticket quoting numactl is not asked for a multi-node NCCL run."""
    (tmp_path / "issue.md").write_text(
        "# decode slow on a dual-socket server\n\nOnly 8 tok/s on one RTX 3090 with the experts in RAM.\n\n"
        "$ numactl --hardware\navailable: 2 nodes (0-1)\nnode 0 cpus: 0-63 (64)\nnode 0 size: 386644 MB\n"
        "node 1 cpus: 64-127 (64)\nnode 1 size: 386998 MB\n")
    out = subprocess.run([sys.executable, "-m", "diagnose", "ticket", str(tmp_path), "--json"],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    assert '"nccl.gdr"' not in out.stdout
