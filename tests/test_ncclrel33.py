"""(issue 11) Rows of rules/catalog/nccl_regressions.toml written from NCCL's own release notes (ncclrel33 pass,
tests/data/ncclrel33/DOCS.md): a mixed Intel/AMD tuning hang (2.18-2.21, fixed 2.22.3), an alltoallv hang (2.12-2.17,
fixed 2.18.1), a split-shared communicator connect hang (2.18-2.26.1, fixed 2.26.2) and an ECE exchange slowdown on
RoCE (2.19-2.26.2, fixed 2.26.3). Each row on a paraphrase of its note's symptom with a release inside its range; the
same words on the fixed release, with no release, and negated must not give the row as the verdict. The paraphrases
are worded from other reports than the threads the rows cite. Then the real first posts kept in tests/data/ncclrel33
(SOURCES.md)."""

from pathlib import Path

import pytest
from conftest import judged_issue

DATA = Path(__file__).parent / "data" / "ncclrel33"
RULE = "nccl.known_regression"

# (row id, its fixed release, a paraphrase with {v} for the release, a release inside the range)
ROWS = [
    ("mixed-cpu-vendor-tuning-hang", "2.22.3",
     "# all_gather hangs on some sizes across our cluster\n\nWe run NCCL {v} on 6 nodes of 8x A800. Half the nodes "
     "have Xeon CPUs, half EPYC. The job hangs on nodes with different CPU vendors at a few message sizes, while "
     "a run on the Xeon nodes only finishes.\n", "2.19.3"),
    ("alltoallv-hang-2.12", "2.18.1",
     "# MoE training stuck in token dispatch\n\nOur expert dispatch calls all_to_all_single with uneven splits "
     "(some ranks send nothing). With NCCL {v} on 4 nodes the alltoallv hangs after a few hundred steps.\n",
     "2.16.5"),
    ("split-share-connect-hang", "2.26.2",
     "# process groups never finish connecting\n\nWe create 6 sub-groups from the world group with splitShare=1 "
     "(NCCL_COMM_SPLIT_SHARE_RESOURCES=1) inside one group call. On NCCL {v}, 2 nodes x 8 H100, setup with "
     "shared resources hangs before the first collective.\n", "2.21.5"),
    ("roce-ece-exchange-slow", "2.26.3",
     "# all_reduce_perf across two nodes is poor on RoCE\n\nNCCL {v}, 2 x 8 H100, 8 x 400G RoCEv2 NICs. "
     "all_reduce_perf reaches 40 GB/s busbw; with ECE enabled the bandwidth is very low and changes run to run, "
     "while ib_write_bw reaches line rate on every NIC.\n", "2.23.4"),
]


def known(text: str):
    verdict, findings = judged_issue(text)
    return verdict, findings.get(RULE)


@pytest.mark.parametrize("row, fixed, text, inside", ROWS, ids=[r[0] for r in ROWS])
def test_row_is_proposed_on_an_affected_release(row, fixed, text, inside):
    verdict, f = known(text.format(v=inside))
    assert f is not None and f.category == "nccl_regression" and row in f.title, (f and f.title)
    assert fixed in f.title and inside in f.summary
    assert verdict.category == "nccl_regression"


@pytest.mark.parametrize("row, fixed, text, inside", ROWS, ids=[r[0] for r in ROWS])
def test_row_is_not_proposed_on_the_fixed_release(row, fixed, text, inside):
    _, f = known(text.format(v=fixed))
    assert f is None or row not in f.title


@pytest.mark.parametrize("row, fixed, text, inside", ROWS, ids=[r[0] for r in ROWS])
def test_row_does_not_decide_without_a_release(row, fixed, text, inside):
    verdict, f = known(text.replace("NCCL {v}", "NCCL").replace("{v}", ""))
    assert f is None or f.category != "nccl_regression"
    assert not (verdict.category == "nccl_regression" and f is not None and row in f.title)


@pytest.mark.parametrize("row, text", [
    ("mixed-cpu-vendor-tuning-hang",
     "# slow allreduce\n\nNCCL 2.19.3 on nodes with mixed CPU vendors (Intel and AMD). Nothing hangs; all_reduce_perf "
     "finishes on every size, only the busbw is 20 GB/s.\n"),
    ("alltoallv-hang-2.12",
     "# alltoallv question\n\nNCCL 2.16.5, 2 nodes. The alltoallv does not hang; it completes every step, we only "
     "want to know whether it can be faster than 8 GB/s.\n"),
    ("split-share-connect-hang",
     "# comm split memory\n\nNCCL 2.21.5; with splitShare=1 the sub-groups share resources and nothing hangs, we "
     "just see 2 GiB less free memory per GPU.\n"),
    ("roce-ece-exchange-slow",
     "# RoCE setup check\n\nNCCL 2.23.4 on RoCE with ECE on: the bandwidth is not low, 360 GB/s busbw as expected.\n"),
], ids=lambda x: x if x.endswith(("hang", "2.12", "slow")) else None)
def test_negated_symptom_is_not_the_row(row, text):
    _, f = known(text)
    assert f is None or row not in f.title or f.category != "nccl_regression"


def test_cpu_binding_is_not_a_cpu_vendor_mix():
    """Ranks pinned to different CPU sockets or cores on one vendor's hosts: not the mixed-vendor tuning row."""
    _, f = known("# hang with numactl\n\nNCCL 2.19.3, 2 nodes of 8 A100 (all Xeon). The job hangs when the ranks are "
                 "bound to different CPU sockets with numactl.\n")
    assert f is None or "mixed-cpu-vendor" not in f.title


def test_ece_row_needs_ece_named():
    """Low RoCE bandwidth on 2.19-2.26 with ECE never mentioned is a fabric question first (PFC, GID index), not this
    row."""
    _, f = known("# low busbw on RoCE\n\nNCCL 2.23.4, 2 x 8 H100 on RoCEv2. all_reduce_perf bandwidth is very low, "
                 "about 40 GB/s.\n")
    assert f is None or "roce-ece" not in f.title


def test_ece_row_ruled_out_when_ece_is_off():
    text = ROWS[3][2].format(v="2.23.4").replace(
        "while ib_write_bw reaches line rate on every NIC.", "and we run with NCCL_IB_ECE_ENABLE=0 in our env.")
    _, f = known(text)
    assert f is None or "roce-ece" not in f.title


# Real first posts (tests/data/ncclrel33/SOURCES.md).
def test_nccl1136_mixed_intel_amd_hang_is_the_tuning_regression():
    verdict, f = known((DATA / "nccl1136.md").read_text())
    assert f is not None and "mixed-cpu-vendor-tuning-hang" in f.title and f.category == "nccl_regression"
    assert f.confidence == 0.75  # the reporter's 2.17.1 works, outside the range
    assert verdict.category == "nccl_regression"


@pytest.mark.xfail(strict=True, reason="NVIDIA/nccl#992: ncclCommAbort stuck on 2.18.1, the maintainer names 2.19.1 "
                   "as the fix, but 2.19.1's notes do not list it and abort hangs are also by design when not every "
                   "rank of a node aborts (NVIDIA/nccl#863): no row, so the ticket stays insufficient_data")
def test_nccl992_abort_hang_on_2_18_1():
    verdict, _ = known((DATA / "nccl992.md").read_text())
    assert verdict.category == "nccl_regression"


def test_release_read_through_the_torch_wheel():
    """No NCCL release named, but a PyTorch wheel the catalog maps (rules/catalog/torch_nccl.toml: torch 2.1.1 brings
    NCCL 2.18.1, torch 2.0.1 brings 2.14.3): the row holds for the first and not for the second."""
    text = ("# training hangs on our mixed cluster\n\nPyTorch version: 2.1.1+cu121 on 4 nodes, two with Intel and two "
            "with AMD CPUs. all_reduce hangs across nodes with mixed CPU vendors at a few sizes.\n")
    verdict, f = known(text)
    assert f is not None and "mixed-cpu-vendor-tuning-hang" in f.title and "2.18.1" in f.title
    assert verdict.category == "nccl_regression"
    _, f = known(text.replace("2.1.1+cu121", "2.0.1+cu117"))
    assert f is None or "mixed-cpu-vendor" not in f.title
