"""Slowness said as a regression between releases, or as a published figure not reproduced, without the words the
symptom reading knew (session s29, pass ut29b, issue 11; tests/data/ut29b, SOURCES.md gives each thread's address, the
answer it settled and the verdict before and after):

- "speed regression", "decode throughput regression", "has regressed by 14.23%", "Performance differs between different
  versions" were read as no complaint at all (symptom "other"), so the release rules stayed silent
  (rules.claims._SPEED_REGRESSION, _SPEED_DIFFERS; "regression" is also a change word beside two releases);
- "Difficulty reproducing NVidia numbers", "far from official", "far lower than 10.59 requests/s you mentioned", "cannot
  reproduce the ... perf", "Unable to produce the result of throughput ... claimed" were read as nothing or as a failure
  (rules.claims._REPRO_TROUBLE, _PERF_OBJECT, _REPRO_VERB);
- near-misses stay unread: a regression of accuracy or of a token count, one a change fixes or reverts, one gone, a
  figure reproduced.
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims

DATA = Path(__file__).parent / "data" / "ut29b"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def symptom(sentence: str) -> str | None:
    return claims.symptom(said(sentence))


# Real sentences of reporters (titles or their first lines), each a slowness complaint the thread confirmed; none of
# them is one of the pastes the reading was written from except where marked.
POSITIVES = [
    # ggml-org/llama.cpp#26025 (paste llamacpp26025.md)
    ("https://github.com/ggml-org/llama.cpp/issues/26025",
     "b10091: ~35% generation speed regression on 8GB VRAM — 3 root causes identified (fit+no-mmap incompatibility, "
     "GPU not boosting, CPU MoE regression) + 30+ tuning experiments"),
    # sgl-project/sglang#28224 (paste sglang28224.md)
    ("https://github.com/sgl-project/sglang/issues/28224",
     "[Bug] Llama 3.3 70B NVFP4 GB200 decode throughput regression after #26496"),
    # vllm-project/vllm#45741 (paste vllm45741.md)
    ("https://github.com/vllm-project/vllm/issues/45741",
     "[Perf]: Severe NVFP4 decode throughput regression on Blackwell (B300/GB300): uninitialized swizzled scale buffer "
     "in `create_fp4_scale_tensor`"),
    ("https://github.com/ggml-org/llama.cpp/issues/6476", "Multi GPU `--split-mode row` speed regression"),
    ("https://github.com/LostRuins/koboldcpp/issues/642", "Speed regression on multi-Pascal-GPU with 1.56"),
    ("https://github.com/vllm-project/vllm/issues/9527", "[Performance]: attention speed regression 0.6.0 => 0.6.3"),
    ("https://github.com/TheTom/llama-cpp-turboquant/issues/379",
     "Misc. bug: -40% decode speed regression with DeepSeek V4 Flash"),
    ("https://github.com/sgl-project/sglang/issues/14665", "[Bug] Llama4 on DGXH100 has regressed by 14.23%"),
    ("https://github.com/ray-project/ray/issues/35517",
     "[CI] [Core] Apparent throughput regressions in several benchmarks"),
    ("https://github.com/vllm-project/vllm/issues/31030", "[Performance]: Regression between 0.10.2 and 0.12.0"),
    ("https://github.com/ggml-org/llama.cpp/issues/27126",
     "Misc. bug: Severe generation speed regression (~10-15×) on CPU starting from b10429 (all models)"),
    ("https://github.com/InternLM/lmdeploy/issues/496", "Performance differs between different versions"),
    ("https://github.com/NVIDIA/TensorRT-LLM/issues/2140", "Difficulty reproducing NVidia numbers on 4x L40S system."),
    ("https://github.com/NVIDIA/TensorRT-LLM/issues/2140",
     "I'm also having trouble reproducing NVidia claimed numbers in the table here: "
     "https://nvidia.github.io/TensorRT-LLM/performance/perf-overview.html#throughput-measurements"),
    ("https://github.com/vllm-project/vllm/issues/359", "This is far from official, how to fix that?"),
    ("https://github.com/ModelTC/LightLLM/issues/104",
     "which is far lower than 10.59 requests/s you mentioned [here](https://github.com/ModelTC/lightllm#service-"
     "performance)."),
    ("https://github.com/NVIDIA/TensorRT-LLM/issues/5766", "Cannot reproduce the deepseek-R1-FP4 perf"),
    ("https://github.com/vllm-project/vllm/issues/12315",
     "[Performance]: Unable to produce the result of throughput & latency claimed on vLLM dashboard v0"),
    # held out: found after the reading was written
    ("https://github.com/sgl-project/sglang/issues/36118",
     "[Bug] Qwen3.8 DFlash2 TTFT regresses 3.1% from db2eb475 to 95f5ecd3 on RTX PRO 6000 Blackwell"),
]

# Real sentences that look alike and are no slowness complaint: a regression of a score or a count, one a change fixes
# or reverts, one gone, results said reproducible or beaten.
NEAR_MISSES = [
    ("https://github.com/intel/auto-round/issues/2059", "[Regression] Qwen3 mxfp4 accuracy regression"),
    ("https://github.com/intel/auto-round/issues/2059", "The regression was gone after switching to `vllm-0.25.1`."),
    ("https://github.com/vllm-project/vllm/issues/50435",
     "GSM8K accuracy regression: nightly (0.26.1rc1.dev77) drops ~5% vs latest (0.26.0) on GLM-5.2-FP8 P/D"),
    ("https://github.com/vllm-project/vllm/issues/17689", "[Bug]: gemma3 shows degraded accuracy in vLLM v0.8.4"),
    ("https://github.com/vllm-project/vllm/issues/42801",
     "[Bug]: Significant accuracy discrepancies across different vLLM versions."),
    ("https://github.com/hyrise/hyrise/pull/2244", "Fix Performance Regression caused by split-or"),
    ("https://github.com/Alex8791-cyber/cognithor/pull/322",
     "fix(pse): revert max_tokens 1024→2048 — caused Sprint-17 throughput regression"),
    ("https://github.com/ROCm/ATOM/pull/1369", "Enable TBO Support & Fix Accuracy Regressions for Kimi K2.5"),
    ("https://github.com/uxlfoundation/oneDNN/pull/4298", "Xe2: fix BMG qwen3 fp8 regression"),
    ("https://github.com/junhoyeo/tokscale/issues/483", "Token count regression after v1.4.3 update: 5B → 3.6B"),
    ("https://github.com/sgl-project/sglang/issues/2097",
     "These benchmark results are **fully reproducible**, and we have clearly **described the vllm and sglang "
     "versions, hardware, and scenarios**."),
    ("https://github.com/vllm-project/vllm/issues/12315",
     "We can replicate or beat the result of same dashboard with H200 device."),
    # held out: found after the reading was written
    ("https://github.com/sgl-project/sglang-omni/pull/698",
     "| WER (corpus) | 0.69% | 0.69% | = (no quality regression) |"),
    ("https://github.com/sgl-project/sglang-omni/pull/698", "**No regression — post1 ~20% faster, WER identical.**"),
]


@pytest.mark.parametrize("url,sentence", POSITIVES)
def test_a_regression_or_a_missed_published_figure_is_slowness(url, sentence):
    assert symptom(sentence) == "slow"


@pytest.mark.parametrize("url,sentence", NEAR_MISSES)
def test_near_misses_are_no_slowness(url, sentence):
    assert symptom(sentence) != "slow"


def test_every_sentence_cites_a_listed_thread():
    sources = (DATA / "SOURCES.md").read_text()
    assert len(POSITIVES) >= 10 and len(NEAR_MISSES) >= 10
    assert all(url in sources for url, _ in POSITIVES + NEAR_MISSES)


def test_a_failure_to_produce_output_stays_a_failure():
    """The verb added for vllm-project/vllm#12315 ("unable to produce the result of throughput") keeps a failure a
    failure when no figure is its object."""
    assert symptom("the server failed to produce any output") == "error"


# --------------------------------------------------------------------------- the pastes, end to end

@pytest.mark.parametrize("name,releases", [
    # ggml-org/llama.cpp#26025: the reporter's own bisect and root causes between b9536 and b10091
    ("llamacpp26025.md", ("b10091", "b9536")),
    # sgl-project/sglang#4916: 0.4.3post2 fine, 0.4.4post3 slow; AniZpZ (maintainer, in sglang#5123 of the same
    # reporter): the launch arguments are not optimal for the new release (awq_marlin, chunked prefill)
    ("sglang4916.md", ("0.4.4", "0.4.3")),
    # kept as they were right blind
    ("llamacpp13735.md", ("b5450", "b5449")),
    ("beellama139.md", ("0.4.4", "0.4.3")),
])
def test_a_slowdown_between_releases_is_the_release_change(name, releases):
    r = verdict(name)
    lead = finding(r, "ticket.engine_versions")
    assert r["verdict"]["category"] == "other" and lead is not None and lead["severity"] == "warning"
    assert all(v in lead["title"] for v in releases)


def test_sglang_4916_fix_points_at_changed_defaults():
    lead = finding(verdict("sglang4916.md"), "ticket.engine_versions")
    assert "changed defaults" in lead["fix"] and "0.4.3post2" in lead["fix"]


def test_regression_titles_now_read_as_slowness():
    """vllm-project/vllm#45741 and sgl-project/sglang#28224 were symptom "other" / "normal?" ("Reference performance:"
    over a table was taken for a question)."""
    for name in ("vllm45741.md", "sglang28224.md", "llamacpp26025.md"):
        from diagnose.artifacts import issue_md
        from diagnose.evidence import Facts
        facts = Facts()
        facts.add(*issue_md.parse((DATA / name).read_text(), "issue.md"))
        assert claims.symptom(facts) == "slow", name


# --------------------------------------------------------------------------- left, as they stand

def test_sglang_28224_bisected_pr_leads():
    """(ab33) The before/after figures are read from the table whose headers name the PR (claims.ab_table_figures), so
    the reporter's A/B on the same GB200 outranks the band fit of the slower run (tests/test_ab33.py)."""
    assert verdict("sglang28224.md")["verdict"]["category"] == "other"


@pytest.mark.xfail(strict=True, reason="llama.cpp build tags without the engine's name (SOURCES.md, left)")
def test_llamacpp_6043_build_tags_are_releases():
    assert finding(verdict("llamacpp6043.md"), "ticket.engine_versions") is not None


@pytest.mark.xfail(strict=True, reason="the published 2,058 tok/s is read as the measured figure (SOURCES.md, left)")
def test_trtllm_329_measured_figure_is_1857():
    r = verdict("trtllm329.md")
    assert any(e.get("measured") == 1857.9 for f in r["findings"] for e in f["evidence"])
