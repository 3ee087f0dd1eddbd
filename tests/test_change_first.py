"""A slowdown between two builds of one setup is the change's, not the setup's (rules.engine.change_first), and a
markdown link to a pull request or commit keeps its address in the prose (diagnose.artifacts.issue_md.CHANGE_LINK).

The real paste: sgl-project/sglang#5527 (tests/data/ut23c/sglang5527.md): 2 x 8 H100 with DP = TP = 16, "a
significant regression in output throughput ... following this [PR](https://github.com/sgl-project/sglang/pull/4390)",
found with Nsight Systems to be CUDA graphs no longer launched (fixed in sgl-project/sglang#6092)."""

from pathlib import Path

from conftest import finding, report_json

from diagnose.artifacts.issue_md import _plain

UT23C = Path(__file__).parent / "data" / "ut23c"


def test_a_change_links_address_stays_in_the_prose():
    # sgl-project/sglang#5527; ggml-org/llama.cpp#5324 links its PR the same way ("After [#4606](...)")
    assert _plain("a regression following this [PR](https://github.com/sgl-project/sglang/pull/4390).") == \
        "a regression following this PR (github.com/sgl-project/sglang/pull/4390)."
    assert _plain("regression after [#4606](https://github.com/ggerganov/llama.cpp/pull/4606)") == \
        "regression after #4606 (github.com/ggerganov/llama.cpp/pull/4606)"
    assert _plain("since [5bf3953](https://github.com/vllm-project/vllm/commit/5bf3953d1f3a2b9c0e1d2c3b4a5f6e7d8c9b0a1f)"
                  ) == "since 5bf3953 (github.com/vllm-project/vllm/commit/5bf3953d1f3a2b9c0e1d2c3b4a5f6e7d8c9b0a1f)"
    # near-misses: an issue, a file at a commit, a blog page and an image keep only their text (or nothing)
    assert _plain("see [this issue](https://github.com/vllm-project/vllm/issues/1873)") == "see this issue"
    assert _plain("the [code](https://github.com/sgl-project/sglang/blob/00391f58/python/x.py#L280)") == "the code"
    assert _plain("([Best Practices](https://blog.vllm.ai/2024/10/23/vllm-serving-amd.html))") == "(Best Practices)"
    assert _plain("![trace](https://github.com/o/r/pull/12.png) done") == "done"
    # the address already written as the link's text is not written twice
    assert _plain("[github.com/o/r/pull/12](https://github.com/o/r/pull/12)") == "github.com/o/r/pull/12"


def test_a_layout_on_both_builds_is_not_what_changed():
    r = report_json("ticket", str(UT23C / "sglang5527.md"))
    assert r["verdict"]["category"] == "eager_mode"
    layout, change = finding(r, "workload.cross_node_tp"), finding(r, "ticket.engine_versions")
    assert change["severity"] == "warning" and "pull/4390" in change["title"]
    assert layout["severity"] == "info" and layout["confidence"] < change["confidence"]


def test_the_same_layout_without_a_change_stays_the_verdict(tmp_path):
    # the paste less its sentence about the pull request: the layout is all that is left to explain the speed
    text = (UT23C / "sglang5527.md").read_text()
    start = text.index("I've observed a significant regression")
    end = text.index("Through debugging")
    (tmp_path / "issue.md").write_text(text[:start] + "Output throughput is low for long outputs. " + text[end:])
    r = report_json("ticket", str(tmp_path / "issue.md"))
    assert finding(r, "ticket.engine_versions") is None
    assert finding(r, "workload.cross_node_tp")["severity"] == "critical"
