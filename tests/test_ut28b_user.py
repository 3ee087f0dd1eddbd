"""Defects found by answering real tickets about how GPUs are attached (risers, x1/x4 slots, Thunderbolt and OCuLink
eGPUs) as a support engineer (session s28, pass ut28b, issue 11; tests/data/ut28b, SOURCES.md gives each thread's
address, the answer it established and the verdict before and after), fixed in general and tested on real pastes and
real near-misses:

- a narrow or slow PCIe link said of a layer split (llama.cpp, Ollama, accelerate's device_map) was judged as if
  tensor parallelism crossed it every layer: 'A GPU's PCIe link runs narrower or slower than the card can' beside a
  decode rate the thread put down to the slower card. A layer split hands one hidden-state vector per token across
  each GPU boundary (hidden x 4 bytes at most), microseconds even over one lane of PCIe Gen1, so the link does not set
  its decode pace (rules.ticket_rules._layer_split_link); prompt processing, loading and host offload, which move far
  more, keep the link finding (claims.link_heavy_phase);
- Thunderbolt and USB4 by their short names ("eGPUs using TB3") and eGPU in the plural were no attachment words
  (claims "pcie_slot");
- a layer split's decode question was asked for `nvidia-smi topo -m`, which cannot change its answer
  (rules.workload.evidence_coverage).
"""

from pathlib import Path

from conftest import finding, report_json, said

from rules import claims
from rules.topology import PCIE_LANE_GBS

DATA = Path(__file__).parent / "data"


def verdict(path: str) -> dict:
    return report_json("ticket", str(DATA / path))


# --------------------------------------------------------------------------- a layer split does not wait on the link

def test_a_layer_split_over_an_egpu_link_is_not_judged_like_tensor_parallelism():
    """AIfred's benchmark page (tests/data/ut26c/aifred_rtx8000_p40.md): a Quadro RTX 8000 and a Tesla P40 on an eGPU
    at PCIe 3.0 x4, llama.cpp's layer split 2:1 against 11:1; the page's own answer is that a balanced split 'forces
    every token through the slower GPU' (straggler). The link is not the cause and is no longer named beside it."""
    r = verdict("ut26c/aifred_rtx8000_p40.md")
    assert r["verdict"]["category"] == "straggler"
    link = finding(r, "ticket.pcie_words")
    assert link["severity"] == "ok" and link["category"] == "healthy"
    assert link["title"] == "A layer split's decode does not wait on the PCIe link"
    assert "pcie_link_degraded" not in r["verdict"]["summary"]
    rows = {e["detail"].split(" (")[0]: e for e in link["evidence"]}
    handover = rows["hidden state handed over per token and GPU boundary"]
    assert handover["unit"] == "KB" and 1 < handover["expected"] < 64  # a hidden vector of thousands of floats
    floor = next(e for e in link["evidence"] if e["detail"].startswith("one lane of PCIe Gen1"))
    assert floor["expected"] == PCIE_LANE_GBS[1] == 0.25 and floor["source"] == "PCIe base specification"
    time = next(e for e in link["evidence"] if e["detail"].startswith("hand-over time per token"))
    assert time["unit"] == "us" and time["expected"] < 1000  # under a millisecond, against tens of ms a token


def test_a_layer_split_decode_question_is_not_asked_for_the_topology():
    """How the GPUs are connected does not set a layer split's decode pace, so `nvidia-smi topo -m` answers nothing
    there (aifred's page: it was the only thing asked); a tensor split keeps the ask (qwen38-mtp#24 runs `-sm tensor`
    beside `-sm layer`, and its all-reduce crosses the link every layer)."""
    r = verdict("ut26c/aifred_rtx8000_p40.md")
    assert finding(r, "workload.evidence_coverage") is None
    assert "topo" not in r["verdict"]["summary"]
    tensor = verdict("ut28b/layervstensor24.md")
    assert finding(tensor, "workload.evidence_coverage") is not None


def test_tensor_parallelism_over_an_x1_riser_keeps_the_link_finding():
    """sudoingX/qwen38-mtp#65 (near-miss): an RTX 2070 on a USB x1 riser (PCIe 2.0 x1) in a `--split-mode tensor` pair;
    the reporter measured the tensor split's gain shrinking to +29% from +68%/+48% on faster links. Tensor
    parallelism crosses the link every layer, so the link finding stays."""
    r = verdict("ut28b/x1riser65.md")
    link = finding(r, "ticket.pcie_words")
    assert link["category"] == "pcie_link_degraded" and link["severity"] == "warning"
    assert "riser" in link["evidence"][0]["detail"]


def test_prompt_processing_and_loading_are_what_a_narrow_link_slows():
    """The phases that move far more than a hidden state per token: prompt processing ("can double prompt processing
    speeds ... the faster slot handles the primary prefill workload", aicrier.com on a r/LocalLLaMA post about an
    x16/x4 pair), loading ("model weights are loaded from system RAM", glukhov.org) and host offload. A partial GPU
    offload count and a layer split's hand-over are none of them."""
    assert claims.link_heavy_phase("Optimizing `llama.cpp` for multi-GPU setups with asymmetrical PCIe lanes (x16/x4) "
                                   "can double prompt processing speeds.")
    assert claims.link_heavy_phase("ensure the faster slot handles the primary prefill workload")
    # glukhov.org, "LLM Performance and PCIe Lanes"
    assert claims.link_heavy_phase("The number of PCIe lanes primarily impacts the speed at which model weights are "
                                   "loaded from system RAM to GPU VRAM")
    assert not claims.link_heavy_phase("55/81 layers offloaded, 7936 n_ctx, 297 n_batch")  # layers ON the GPU
    assert not claims.link_heavy_phase("`-sm layer` splits layers, so at batch 1 there is nothing to pipeline")
    assert not claims.link_heavy_phase("", None)


def test_a_tensor_split_named_beside_the_layer_split_keeps_the_link_in_play():
    """llama.cpp's tensor splits by their option, however written: `split_mode = "row"` (ollama/ollama#2191, whose
    layer split ran at 60% of its row split over an NVLink bridge; tests/data/ut13/ollama2191.md keeps its topology
    ask), "--split-mode tensor" (qwen38-mtp#65), "`-sm tensor`" (#24). "--tensor-split 35,37,28" is how much of the
    model each GPU holds, and "--split-mode layer" the layer split itself (qwen38-mtp#16): no tensor split."""
    for text in ('I only get around 60% of the tokens/s that I get with `split_mode = "row"`',
                 "**Table row**: `--split-mode tensor --tensor-split 5,2`, 25.5 tok/s baseline",
                 "`-sm tensor` splits each matmul, both cards read weights at once"):
        assert claims.tensor_split_said(said(text)), text
    assert not claims.tensor_split_said(said("**Hardware:** 3x RTX 3060 12GB, layer split --split-mode layer "
                                             "--tensor-split 35,37,28 (no NVLink)"))
    r = verdict("ut13/ollama2191.md")
    assert "topo -m" in finding(r, "workload.evidence_coverage")["fix"]


# --------------------------------------------------------------------------- attachment words

def test_thunderbolt_by_its_short_name_and_egpus_in_the_plural_are_attachment_words():
    """noonghunna/club-3090#347's title ("dual mixed 24GB Ampere eGPUs using TB3") and a club-5060ti reply ("1x eGPU
    with 5060ti with USB4 connect to notebook", 5p00kyy/club-5060ti#6) name how the GPU is attached; "4TB NVMe" and
    "Qwen3-Next" do not."""
    for text in ("Qwen3.6-27B-FP8 on dual mixed 24GB Ampere eGPUs using TB3",
                 "1x eGPU with 5060ti with USB4 connect to notebook"):
        assert claims.find(said(text), "pcie_slot"), text
    for text in ("models live on a 4TB NVMe drive", "Qwen3-Next-80B-A3B on two cards"):
        assert not claims.find(said(text), "pcie_slot"), text


# --------------------------------------------------------------------------- the pastes as answered (blind, then now)

def test_tb3_bench_reports_are_not_given_a_cause_they_do_not_show():
    """club-3090#347 and #1011: TB3 eGPU bench reports the maintainer called healthy for the setup (a modest TB3 x4 /
    P2P-off tax). The bundles hold no complaint and no model the catalog prices, so nothing is concluded: no link
    fault is invented from the attachment alone."""
    for name in ("ut28b/tb3dual347.md", "ut28b/tb3mixed1011.md"):
        r = verdict(name)
        assert r["verdict"]["category"] == "insufficient_data", name
        assert finding(r, "ticket.pcie_words") is None, name
