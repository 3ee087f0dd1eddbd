"""Issue 11: a hang the reporter finds only WITH A SOFTWARE COMPONENT in the job (a KV-cache plugin, a connector, a
cache) speaks against a blocked peer-to-peer path. A path that never delivers (ACS, the IOMMU, a hypervisor) hangs
NCCL's first collective whatever the engine loads; a hang that goes when the component is left out, the GPUs and the
parallel layout kept, points at the component. The claim (rules.claims "component_hang") lowers the P2P lead below
insufficient_data; leaving out the layout or the path itself ("works fine without parallelism", "does not hang without
P2P"), or a hang that stays without the component, leaves the lead as it was."""

import pytest
from test_hang_timing import checked_p2p_lead

from rules.claims import PATTERNS, states


def test_public_kvcached_334_does_not_reproduce_without_the_plugin():
    """https://github.com/ovg-project/kvcached/issues/334 (first post; a one-GPU start-up hang, another thread than
    the TP2 one this claim was written for): the reporter's A/B, Markdown emphasis kept."""
    assert states("component_hang", "This does **not** reproduce when running the same vLLM startup configuration "
                                    "without kvcached.")


def test_public_hami_1461_without_parallelism_is_no_component():
    """https://github.com/Project-HAMi/HAMi/issues/1461 (first post): 'works fine without parallelism' leaves out the
    multi-GPU job itself, which a blocked peer path needs to show: no claim."""
    assert not states("component_hang", "- --tensor-parallel-size=2 # same crash with pipeline-parallel-size=2, works "
                                        "fine without parallelism")


def test_public_lmcache_355_success_without_tp_is_no_component():
    """https://github.com/LMCache/LMCache/issues/355 (first post): the plugin ran until TP was raised, the opposite A/B
    (the component kept, the layout changed): no claim."""
    assert not states("component_hang", "I ran successfully vllm (0.7.0) that uses lmcache by docker but when i run "
                                        "tensor-parallel-size is larger than 1 - I got error")


SETUP = "2x RTX 4090 PCIe (no NVLink), one node, vLLM with --tensor-parallel-size 2, Qwen3-8B.\n\n"

WITH_COMPONENT = [  # the same layout runs without the component
    "The server hangs at startup. This does not reproduce without the KV-cache plugin.",
    "Startup hangs with the connector enabled; it works fine without LMCache.",
    "The engine hangs before serving. Without the prefix-cache extension, the same TP=2 server starts normally.",
    "Loading hangs forever. The hang doesn't happen without kvcached.",
]
STILL_HANGS = [  # the layout or the path left out, or the hang stays without the component
    "The server hangs at startup. It works fine without tensor parallelism.",
    "The server hangs at startup. It does not hang without P2P.",
    "The server hangs at startup. It also hangs without kvcached.",
    "The server hangs at startup. Without LMCache it hangs too.",
    "The server hangs at startup. It runs fine without the IOMMU.",
    "The server hangs at startup. It works fine without the second GPU.",
]


@pytest.mark.parametrize("words,component", [(w, True) for w in WITH_COMPONENT] + [(w, False) for w in STILL_HANGS])
def test_the_p2p_lead_drops_only_when_the_component_alone_is_left_out(tmp_path, words, component):
    lead = checked_p2p_lead(tmp_path, "# TP hang\n\n" + SETUP + words + "\n", lowered=component)
    assert ("without a software component" in lead["title"]) == component


def test_the_claim_is_written_in_the_claim_table():
    assert "component_hang" in PATTERNS
