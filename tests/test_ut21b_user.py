"""Defects found by answering real public threads as a support engineer (session s21, helper b, tests/data/ut21b;
SOURCES.md gives each thread's address, the answer it established and the verdict before and after), each fixed in
general and tested here on the paste that showed it, on a real sentence from another thread, and on negations:

- an NCCL setting written in words, the variable first ("I found that NCCL_P2P_DISABLE was set to 1",
  xdit-project/xDiT#526; "when NCCL_P2P_DISABLE is set to 1 like this", NVIDIA/nccl#631) was not read at all, so a
  1.6x-instead-of-2x question the reporter closed by turning P2P back on was `expected_physics`; a setting under an
  "if" ("if NCCL_P2P_DISABLE is set to 1, communication ... uses shared memory", NVIDIA/nccl#631) says what it would
  do, not that it is set;
- a hang on a GPU whose catalog row is an NVSwitch board ("worker hang on ... EP=8 (B200 SM100)",
  vllm-project/vllm#42186; "NcclAllReduceSum with 4 GPUs hangs" on A800-SXM4, NVIDIA/nccl#901) was put
  on "a hang between PCIe-connected GPUs" (`p2p_disabled`): every GPU pair of those boards is on NVLink;
- two releases of a package other than the engine, as pip names it ("bisected to flashinfer-python 0.6.7 →
  0.6.8.post1", vllm-project/vllm#42186) were dropped as Python's own version ("python 0.6.7") and the bisect went
  unread; read, the finding names the package, not the engine named elsewhere in the text;
- llama.cpp's releases by their build tags ("good results with release b1842 and earlier. With b1843 and newer ...
  a ~62% drop", ggml-org/llama.cpp#6814; "For release b5449 ... 26 token per second / After release b5450 ... 16",
  ggml-org/llama.cpp#13735) were not releases, so an 8x P40 slowdown between two builds was `expected_physics`
  (one GPU's pace under a layer split) instead of the engine's change (`other`).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims
from rules.common import settings

DATA = Path(__file__).parent / "data" / "ut21b"


def report(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


# --------------------------------------------------------------------------- a setting written in words

def test_setting_in_words_is_in_use():
    r = report("xdit526.md")
    assert r["verdict"]["category"] == "p2p_disabled"
    assert finding(r, "topology.p2p_forced_off")


@pytest.mark.parametrize("text, value", [
    ("After checking, I found that NCCL_P2P_DISABLE was set to 1.", "1"),  # xdit-project/xDiT#526
    # NVIDIA/nccl#631, the reporter's own set-up
    ("I would like to know what potential problems can arise when NCCL_P2P_DISABLE is set to 1 like this.", "1"),
])
def test_setting_in_words_in_another_thread(text, value):
    assert [s.value for s in settings(said(text), "NCCL_P2P_DISABLE")] == [value]


@pytest.mark.parametrize("text", [
    # NVIDIA/nccl#631: what the setting would do, not that it is set
    "As far as I know, if NCCL_P2P_DISABLE is set to 1, communication between GPUs is performed using shared memory "
    "instead of P2P/ICP.",
    "if NCCL_P2P_DISABLE=1, communication between GPUs is performed using shared memory.",
    "NCCL_P2P_DISABLE was not set to 1 on this machine.",
    "Should NCCL_P2P_DISABLE be set to 1?",
])
def test_setting_in_words_negations(text):
    assert settings(said(text), "NCCL_P2P_DISABLE") == []


# --------------------------------------------------------------------------- a hang on an NVSwitch board

def test_hang_on_nvswitch_board_is_not_a_pcie_hang():
    r = report("vllm42186.md")
    assert finding(r, "ticket.hang_on_pcie") is None
    assert r["verdict"]["category"] == "other"


def test_hang_on_nvswitch_board_in_another_thread(tmp_path):
    # NVIDIA/nccl#901, its title and its log: four A800 SXM4 (an NVSwitch board)
    log = "".join(f"Device NVIDIA A800-SXM4-80GB\nP{i} is runing with {i} GPU.\n" for i in range(4))
    (tmp_path / "issue.md").write_text("# FasterTransformer NcclAllReduceSum with 4 GPUs hangs\n\nnccl log \n"
                                       "Total ranks: 4.\n" + log)
    assert finding(report_json("ticket", str(tmp_path)), "ticket.hang_on_pcie") is None


def test_hang_on_pcie_gpus_still_points_at_p2p(tmp_path):
    # vllm-project/vllm#8087: six A40s (PCIe cards), TP > 1 stuck
    (tmp_path / "issue.md").write_text("# [Bug]: when tensor-parallel-size>1，Stuck\n\nGPU models and configuration: \n"
                                       + "".join(f"GPU {i}: NVIDIA A40\n" for i in range(6)))
    f = finding(report_json("ticket", str(tmp_path)), "ticket.hang_on_pcie")
    assert f and f["category"] == "p2p_disabled"


# --------------------------------------------------------------------------- a package's releases, bisected

def test_package_releases_bisected_are_a_software_change():
    r = report("vllm42186.md")
    f = finding(r, "ticket.engine_versions")
    assert f and f["title"].startswith("flashinfer 0.6.8 vs 0.6.7")


def test_package_releases_in_another_thread():
    # flashinfer-ai/flashinfer#3279, the same bisect reported to the package's own project, its title
    text = ("[Bug][vLLM]: vLLM worker hang on Qwen3.5-397B-A17B-NVFP4 EP=8 (B200) - bisected to flashinfer-python "
            "0.6.7 → 0.6.8.post1")
    (c,) = claims.find(said(text), "engine_versions_compared")
    assert c.data["engine"] == "flashinfer-python" and set(c.data["versions"]) == {"0.6.7", "0.6.8"}


@pytest.mark.parametrize("text", [
    # a bisect that names no release (NVIDIA/nccl-tests and vLLM threads write "bisected" of commits too)
    "I bisected it but could not find the commit yet, the worker still hangs.",
    # Python's own release beside one engine release is no pair of releases (vllm-project/vllm#6370's environment)
    "Python version: 3.9.0 (default, Nov 15 2020, 14:28:56)  [GCC 7.3.0] (64-bit runtime) ... vLLM Version: 0.5.1",
])
def test_package_releases_negations(text):
    assert claims.find(said(text), "engine_versions_compared") == []


# --------------------------------------------------------------------------- llama.cpp build tags as releases

def test_llamacpp_builds_are_releases():
    r = report("llamacpp6814.md")
    assert r["verdict"]["category"] == "other"
    f = finding(r, "ticket.engine_versions")
    assert f and "b1842" in f["title"] and "b1843" in f["title"]
    # the slower build measured against the build right before it, the two the reporter sets side by side
    (row,) = [e for e in f["evidence"] if "expected: b1842's figure" in e["detail"]]
    assert (row["measured"], row["expected"]) == (3.73, 9.76)


def test_llamacpp_builds_in_another_thread():
    # ggml-org/llama.cpp#13735, its title and its own words
    text = ("Misc. bug: llama-server token per second slow down sigificant after release b5450 (#13642)\n"
            "For release b5449, I could archive around 26 token per second\n"
            "After release b5450, I could only archive around 16 token per second")
    (c,) = claims.find(said(text), "engine_versions_compared")
    assert set(c.data["versions"]) == {"b5449", "b5450"}


@pytest.mark.parametrize("text", [
    "Using b5450 with -ngl 99 I get 26 t/s on llama-server.",  # one build, nothing compared
    "llama.cpp on 8x b200 is slower than on 8x h100 after the upgrade",  # a GPU, not a build
])
def test_llamacpp_builds_negations(text):
    assert claims.find(said(text), "engine_versions_compared") == []
