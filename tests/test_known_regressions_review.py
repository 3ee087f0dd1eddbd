"""(issue 11) Probes from a review of nccl.known_regression that each became the ticket verdict nccl_regression:
the release left behind or only heard of, start-up OOMs that are not NCCL's, slow graph replay read as slow capture,
a workaround already set (sentence-final punctuation), a setting only asked about or denied, and a symptom with
another stated cause. Each must not be proposed; the positives beside them must still fire. Texts are written for
this test from the review's probes (paraphrases of public threads: NVIDIA/nccl#1116, vllm#5091, sglang#631)."""

import pytest
from conftest import judged_issue

RULE = "nccl.known_regression"


def known(text: str):
    verdict, findings = judged_issue(text)
    return verdict, findings.get(RULE)


def not_proposed(text: str):
    verdict, f = known(text)
    assert f is None or f.category != "nccl_regression", (f.title, f.summary)
    return verdict


@pytest.mark.parametrize("text", [
    # 1. the "from" side of an upgrade, a release only read about
    "# alltoall hang\n\nWe upgraded from NCCL 2.19.3 to 2.23.4 and the alltoall still hangs at init on 16 nodes.\n",
    "# alltoall hang\n\nI read that NCCL 2.19.3 had an alltoall hang, but we run NCCL 2.23.4 and our alltoall "
    "still hangs.\n",
    # 2. start-up OOMs that are the model's or the batch's
    "# OOM at startup\n\n8x H100 SXM, NCCL 2.18.1. The server runs out of memory at startup when loading the "
    "weights.\n",
    "# OOM in warmup\n\nSGLang on 8x H100, NCCL 2.21.5, tp 4. CUDA out of memory during warmup with a large max batch "
    "size.\n",
    # 3. replay or decode speed, not capture time
    "# slow decode\n\nvLLM on 4x H100, NCCL 2.26.2: with CUDA graphs captured, decode is slower than expected.\n",
    "# slow replay\n\nvLLM on 4x H100 with NCCL 2.26.3: the captured graph replays slower than eager.\n",
    # 4. the workaround already set, written at a sentence's end
    "# alltoall hang\n\nNCCL 2.19.3 on 16 nodes: the alltoall hangs at init. We already export "
    "NCCL_CUMEM_ENABLE=0.\n",
    # 5. the setting asked about or denied
    "# busbw drop\n\nNCCL 2.21.5 on 2 nodes. Should we try NCCL_CROSS_NIC=1? The all_reduce busbw dropped from 180 "
    "to 120 GB/s.\n",
    "# busbw drop\n\nNCCL 2.21.5 on 2 nodes: the all_reduce busbw dropped from 180 to 120 GB/s. We do not set "
    "NCCL_CROSS_NIC=1 anywhere.\n",
    # 6. another cause stated, a problem solved by a non-NCCL change
    "# init hang\n\nNCCL 2.19.3 on 1 node with 8 GPUs: the alltoall hangs at ncclCommInitRank and never completes "
    "because the firewall blocks port 29500.\n",
    "# timeout\n\nWith NCCL 2.19.3 our 2-node vLLM job times out: the all-to-all never starts. We set "
    "NCCL_SOCKET_IFNAME wrong and fixed it; now it works.\n",
])
def test_review_probe_is_not_a_known_regression(text):
    not_proposed(text)


@pytest.mark.parametrize("text, row", [
    ("# alltoall hang\n\nWe upgraded from NCCL 2.18.6 to 2.19.3 and now the alltoall hangs at init on 16 nodes.\n",
     "cumem-alltoall-connect-hang"),
    ("# NVLS OOM\n\n8x H100 SXM with NCCL 2.18.1: CUDA out of memory in ncclCommInitRank when NVLS is on.\n",
     "nvls-init-memory"),
    ("# slow capture\n\nvLLM on 8x H100, NCCL 2.26.2: graph capture takes much longer than before, several "
     "minutes at start-up.\n", "graph-capture-overhead-2.26"),
    ("# busbw drop\n\nNCCL 2.21.5 on 2 nodes with NCCL_CROSS_NIC=1 exported: the all_reduce busbw dropped from 180 "
     "to 120 GB/s.\n", "cross-nic-alternating-rings"),
])
def test_review_positives_still_fire(text, row):
    verdict, f = known(text)
    assert f is not None and f.category == "nccl_regression" and row in f.title
