"""NCCL_DEBUG=INFO logs and NCCL errors: real ticket attachments, pasted variants, fuzz."""

from pathlib import Path

import pytest
from artifact_fuzz import assert_survives_fuzz
from conftest import shared_path

from diagnose.artifacts import nccl_log
from diagnose.evidence import HostFact, NcclEvent, NcclSetting, NcclTransport, NcclVersion, Workload

TICKETS = "tickets"


def ticket_text(folder, name):
    return shared_path(TICKETS, folder, name).read_text()


def of(records, cls, kind=None):
    return [r for r in records if isinstance(r, cls) and (kind is None or r.kind == kind)]


def test_env_echo_010():
    text = ticket_text("010-nccl-tests-228-a100-p2p-level-loc-forces-shm", "attachment2.log")
    assert nccl_log.detect(text) >= 0.5
    assert nccl_log.parse(text, "attachment2.log") == [NcclSetting("attachment2.log:1", "NCCL_P2P_LEVEL", "LOC")]


def test_shm_segment_error_027():
    records = nccl_log.parse(ticket_text("027-torchtitan-853-ci-container-shm-16mb-h100", "attachment1.log"), "a1")
    (version,) = of(records, NcclVersion)
    assert version.version == "2.21.5" and version.source == "a1:1"
    (shm,) = of(records, NcclEvent, "shm_alloc_failed")
    assert shm.source == "a1:4" and shm.data == {"path": "/dev/shm/nccl-1YsMbG", "size_bytes": 7340384}
    errors = of(records, NcclEvent, "error")
    assert [e.source for e in errors] == ["a1:1", "a1:2"]
    assert "unhandled system error" in errors[0].message and errors[1].message.startswith("ncclSystemError")


def test_framework_version_line_028():
    records = nccl_log.parse(ticket_text("028-vllm-6610-gh200-multinode-pp-socket-and-expected", "attachment3.log"),
                             "a3")
    assert [(v.version, v.source) for v in of(records, NcclVersion)] == [("2.21.5", "a3:1")]


def test_ib_open_failure_then_sockets_030():
    records = nccl_log.parse(ticket_text("030-nccl-451-docker-ibv-open-device-failed-socket", "attachment1.log"), "a1")
    assert of(records, NcclSetting) == [NcclSetting("a1:1", "NCCL_IB_DISABLE", "0")]  # the trailing '.' is NCCL's
    assert [e.source for e in of(records, NcclEvent, "ib_unavailable")] == ["a1:2", "a1:3", "a1:4"]
    socket = of(records, NcclEvent, "using_socket")
    assert socket[0].data == {"interfaces": ["bond0"]} and socket[1].data == {"network": "Socket"}
    assert socket[1].source == "a1:6"


def test_transports_with_and_without_gdr_032():
    records = nccl_log.parse(ticket_text("032-nccl-tests-152-a100-nv-peer-mem-not-loaded", "attachment2.log"), "a2")
    (channels,) = of(records, NcclEvent, "channels")
    assert channels.data == {"coll": 4, "p2p": 4}
    transports = of(records, NcclTransport)
    assert [(t.transport, t.detail, t.gdr, t.peer) for t in transports] == [
        ("P2P", "P2P/IPC/read", None, 1),
        ("NET", "NET/IB/1/GDRDMA", True, 8),
        ("NET", "NET/IB/0", False, 8),
        ("NET", "NET/IB/1/GDRDMA/Shared", True, 12),
        ("NET", "NET/IB/5/Shared", False, 12),
    ]
    assert all(t.net in (None, "IB") and t.channel == 0 and t.rank == 0 for t in transports)
    assert transports[0].source == "a2:2"


def test_interleaved_prefixed_log_lines():
    """Lines as a multi-rank job prints them, mixed with the framework's own output."""
    real = ticket_text("032-nccl-tests-152-a100-nv-peer-mem-not-loaded", "attachment2.log").splitlines()
    text = "\n".join([
        "[1,0]<stdout>:gpu32:22612:22612 [0] NCCL INFO NCCL version 2.18.3+cuda12.2",
        "Epoch 1: loss 2.31",
        "[1,1]<stdout>:" + real[1],
        "gpu32:22612:22693 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7",
        "gpu32:22612:22693 [0] NCCL INFO Channel 01/0 : 1[1] -> 0[0] via SHM/direct/direct",
        "gpu32:22612:22693 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
        "gpu32:22612:22693 [0] NCCL INFO Channel 03 : 0[0] -> 1[1] via P2P/direct pointer",
        "gpu32:22612:22693 [0] NCCL INFO Channel 00 : 0[0] -> 8[0] [send] via NET/Socket/0",
        "gpu32:22612:22693 [0] NCCL INFO comm 0x55d0 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0",
        "gpu32:22612:22694 [1] NCCL INFO comm 0x55d1 rank 1 nRanks 16 nNodes 2 localRanks 8 localRank 1 MNNVL 0",
        "gpu32:22612:22693 [0] NCCL INFO 24 coll channels, 0 collnet channels, 0 nvls channels, 32 p2p channels, "
        "2 p2p channels per peer",
        "gpu32:22612:22693 [0] NCCL INFO P2P Chunksize set to 524288",
        "gpu32:22612:22693 [0] NCCL INFO NVLS multicast support is not available on dev 0",
        "gpu32:22612:22693 [0] misc/shmutils.cc:87 NCCL WARN Error: failed to extend "
        "/dev/shm/nccl-ab12 to 9637892 bytes",
        "gpu32:22612:22693 [0] NCCL WARN Cuda failure 'out of memory'",
        "shm              64M     0   64M   0% /dev/shm",
    ]).replace("\n", "\r\n")
    records = nccl_log.parse(text, "log")
    assert [(v.version, v.cuda) for v in of(records, NcclVersion)] == [("2.18.3", "12.2")]
    details = [t.detail for t in of(records, NcclTransport)]
    assert details == ["P2P/IPC/read", "SHM/direct/direct", "P2P/CUMEM/read", "P2P/direct pointer", "NET/Socket/0"]
    socket = of(records, NcclTransport)[-1]
    assert (socket.transport, socket.net, socket.gdr) == ("NET", "Socket", False)
    (ring,) = of(records, NcclEvent, "ring")
    assert ring.data == {"channel": 0, "of": 2, "ranks": list(range(8))}
    assert len(of(records, NcclEvent, "comm")) == 2
    assert [(w.gpu_count, w.nodes) for w in of(records, Workload)] == [(16, 2)]  # said once, not per rank
    assert of(records, NcclEvent, "channels")[0].data == {"coll": 24, "collnet": 0, "nvls": 0, "p2p": 32}
    assert of(records, NcclEvent, "p2p_chunksize")[0].data == {"bytes": 524288}
    assert of(records, NcclEvent, "nvls")[0].source == "log:13"
    assert of(records, NcclEvent, "shm_alloc_failed")[0].data["size_bytes"] == 9637892
    assert of(records, NcclEvent, "warn")[0].message == "Cuda failure 'out of memory'"
    assert of(records, HostFact) == [HostFact("log:16", "shm_bytes", 64 * 1024 ** 2)]


def test_fuzz_never_raises():
    seeds = [ticket_text(f, n) for f, n in (
        ("030-nccl-451-docker-ibv-open-device-failed-socket", "attachment1.log"),
        ("032-nccl-tests-152-a100-nv-peer-mem-not-loaded", "attachment2.log"),
        ("027-torchtitan-853-ci-container-shm-16mb-h100", "attachment1.log"),
    )]
    assert_survives_fuzz(nccl_log, seeds, n=200)


def test_network_gdr_affinity_and_driver_lines():
    text = "\n".join([
        "node1:100:100 [0] NCCL INFO cudaDriverVersion 12020",
        "node1:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ; OOB eth0:10.0.0.1<0>",
        "node1:100:100 [0] NCCL INFO Using network IB",
        "node1:100:200 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)",
        "node1:100:200 [3] NCCL INFO Setting affinity for GPU 3 to ffffff,00000000,00ffffff",
    ])
    records = nccl_log.parse(text, "n.log")
    assert of(records, HostFact) == [HostFact("n.log:1", "cuda_driver_version", "12.2")]
    ib = of(records, NcclEvent, "network")
    assert ib[0].data == {"network": "IB", "devices": ["mlx5_0:1", "mlx5_1:1"], "link_layers": ["IB", "RoCE"]}
    assert ib[1].data == {"network": "IB"}
    (gdr,) = of(records, NcclEvent, "gdr")
    assert gdr.data == {"enabled": False, "reason": "no module"}
    (affinity,) = of(records, NcclEvent, "affinity")
    assert affinity.data == {"gpu": 3, "mask": "ffffff,00000000,00ffffff", "cpus": 48,
                             "cpu_ids": list(range(24)) + list(range(64, 88))}


@pytest.mark.parametrize("mask, ids", [
    ("0-31,64-95", list(range(32)) + list(range(64, 96))),  # NCCL 2.23+ prints ranges (ncclCpusetToRangeStr)
    ("5", [5]),
    ("0,2,4", [0, 2, 4]),
    ("00000020", [5]),  # the hex form (ncclCpusetToStr): 32-bit groups of 8 digits, leading zero bytes dropped
    ("ff,00000000", list(range(32, 40))),
])
def test_nccl_affinity_masks_in_both_forms(mask, ids):
    (affinity,) = of(nccl_log.parse(f"h:1:1 [0] NCCL INFO Setting affinity for GPU 0 to {mask}", "n.log"),
                     NcclEvent, "affinity")
    assert (affinity.data["mask"], affinity.data["cpu_ids"], affinity.data["cpus"]) == (mask, ids, len(ids))


def test_old_ring_lines_timeouts_and_missing_interfaces():
    text = "\n".join([
        "dgx1:2001:2001 [0] NCCL INFO Ring 00 :    0   1   2   3",
        "dgx1:2001:2001 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC",
        "[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600055 milliseconds "
        "before timing out.",
        "node1:100:100 [0] bootstrap.cc:40 NCCL WARN Bootstrap : no socket interface found",
    ])
    records = nccl_log.parse(text, "old.log")
    (ring,) = of(records, NcclEvent, "ring")
    assert ring.data == {"channel": 0, "of": None, "ranks": [0, 1, 2, 3]}
    assert [t.detail for t in of(records, NcclTransport)] == ["P2P/IPC"]
    assert [e.source for e in of(records, NcclEvent, "timeout")] == ["old.log:3"]
    assert [e.source for e in of(records, NcclEvent, "net_init_failed")] == ["old.log:4"]


def _corpus_line(folder, needle):
    """The first line of a real public issue (tests/data/tickets) holding `needle`."""
    text = (Path(__file__).parent / "data" / "tickets" / folder / "issue.md").read_text()
    return next(ln for ln in text.splitlines() if needle in ln)


def test_quotes_ib_reads_ncclS_own_lines_quoted_in_prose():
    """Rules ask whether the reporter quotes NCCL on InfiniBand; the line formats live here (real issues' lines)."""
    opened = _corpus_line("h018-nccl-tests-a100pcie-2node-bw-nps4", "NET/IB : Using [")
    gdr = _corpus_line("n005-nccl-gdrdma-only-one-node", "via NET/IB/0/GDRDMA")
    socket = _corpus_line("e030-nccl-no-plugin-found-info-only", "NET/Socket : Using [")
    assert nccl_log.quotes_ib(opened) and nccl_log.quotes_ib(opened, opened=True)
    assert nccl_log.quotes_ib(gdr) and not nccl_log.quotes_ib(gdr, opened=True)  # a channel line names no HCA opened
    assert not nccl_log.quotes_ib(socket) and not nccl_log.quotes_ib(socket, opened=True)
    assert not nccl_log.quotes_ib("NCCL INFO NET/IB : No device found.")


def test_shm_line_before_2_14_n039():
    """NCCL up to 2.12 names its SHM transport 'via direct shared memory' (src/transport/shm.cc at v2.4.8-1 ..
    v2.12.12-1; 'via SHM/direct/direct' from v2.14.3-1): the same transport as the later line. Real log:
    https://github.com/NVIDIA/nccl/issues/290 (tests/data/tickets/n039-...)."""
    text = (Path(__file__).parent / "data" / "tickets" / "n039-nccl-horovod-tf-container-posix-fallocate"
            / "issue.md").read_text()
    transports = of(nccl_log.parse(text, "issue.md"), NcclTransport)
    assert transports and {t.transport for t in transports} == {"SHM"}
    assert transports[0].detail == "direct shared memory" and (transports[0].rank, transports[0].peer) == (2, 3)
    later = nccl_log.parse("h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct", "l")
    assert [t.transport for t in of(later, NcclTransport)] == ["SHM"]
    p2p = nccl_log.parse("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/direct pointer", "l")
    assert [t.transport for t in of(p2p, NcclTransport)] == ["P2P"]
