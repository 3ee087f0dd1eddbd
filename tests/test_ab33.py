"""(ab33, issue 11) The reporter's own A/B on the same hardware outranks "the figure fits its band": a build before a
change and one after it, each measured by the reporter on the same GPUs, model and layout, show what the hardware can
do, so the slower build is no physics however well it fits. Here the A/B written as a Markdown table whose columns are
headed by the side of the change (claims.ab_table_figures), the form of sgl-project/sglang's bisect reports."""
from pathlib import Path

from conftest import finding, report_json

from rules import claims

UT29B = Path(__file__).parent / "data" / "ut29b"
UT15 = Path(__file__).parent / "data" / "ut15"


def ticket(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "issue.md"
    path.write_text(text)
    return report_json("ticket", str(path))


# ----------------------------------------------------------------------------------------------------- real pastes

def test_sglang_28224_table_ab_outranks_the_band_fit():
    """sgl-project/sglang#28224: GB200 TP=4, ~126.9 -> ~104.4 tok/s across PR #26496 in a "Before #26496 | After
    #26496" table. 104.4 fits the calibrated band, yet the same hardware gave 126.9: the code change, `other`."""
    r = report_json("ticket", str(UT29B / "sglang28224.md"))
    assert r["verdict"]["category"] == "other"
    f = finding(r, "ticket.engine_versions")
    assert any(e["measured"] == 104.4 and e["expected"] == 126.9 for e in f["evidence"])
    assert "18 % of the rate lost" in f["title"]  # 1 - 104.4 / 126.9, from the reporter's two figures


def test_sglang_30200_sentence_ab_unchanged():
    """sgl-project/sglang#30200 gives its A/B in a sentence ("remains at approximately 128.8 ... measures
    approximately 124.8"): read as before, still `other` with both figures."""
    r = report_json("ticket", str(UT15 / "sglang30200" / "issue.md"))
    assert r["verdict"]["category"] == "other"
    f = finding(r, "ticket.engine_versions")
    assert any(e["measured"] == 124.8 and e["expected"] == 128.8 for e in f["evidence"])


def test_real_table_without_before_after_columns_is_no_ab():
    """The kept 2x RTX 5060 Ti table of `-sm layer` against `-sm tensor` (tests/data/ut28b/layervstensor24.md) and
    the RTX 8000 / P40 table (ut26c/aifred_rtx8000_p40.md) have no before/after columns: no build A/B is read."""
    data = Path(__file__).parent / "data"
    for name in ("ut28b/layervstensor24.md", "ut26c/aifred_rtx8000_p40.md", "extract32/sglang39114.md"):
        assert claims.ab_table_figures((data / name).read_text()) == {}, name


# ------------------------------------------------------------------------------------------- the reader, written

HEAD = "| Workload | System | {a} | {b} | Drop |\n| --- | --- | ---: | ---: | ---: |\n"


def test_reader_takes_the_row_under_before_and_after_columns():
    text = (HEAD.format(a="Before PR #1234", b="After PR #1234")
            + "| Qwen3 32B | 8x H100, TP=8 | 1,450 tok/s | 1,120 tok/s | 23% |\n")
    assert claims.ab_table_figures(text) == {"before": (1450.0, "tok/s"), "after": (1120.0, "tok/s")}


def test_reader_takes_without_and_with_columns_of_times():
    text = HEAD.format(a="without the change", b="with the change") + "| ITL | H200 x4 | 9.8 ms | 14.1 ms | +44% |\n"
    assert claims.ab_table_figures(text) == {"before": (9.8, "ms"), "after": (14.1, "ms")}


def test_reader_no_ab_where_the_build_after_is_faster():
    """B faster than A: no slowdown to read."""
    text = HEAD.format(a="Before #77", b="After #77") + "| Llama | H100 | 90 tok/s | 131 tok/s | -45% |\n"
    assert claims.ab_table_figures(text) == {}


def test_reader_no_ab_where_both_columns_agree():
    """"No difference between the builds": the same figure on both sides."""
    text = HEAD.format(a="Before #77", b="After #77") + "| Llama | H100 | 88.0 tok/s | 88.0 tok/s | 0% |\n"
    assert claims.ab_table_figures(text) == {}


def test_reader_no_ab_across_different_gpus():
    """Columns headed by two GPUs are two machines, not two builds of one setup."""
    text = HEAD.format(a="H100", b="A100") + "| Llama | TP=4 | 120 tok/s | 70 tok/s | 42% |\n"
    assert claims.ab_table_figures(text) == {}


def test_reader_no_ab_from_units_that_differ():
    text = HEAD.format(a="Before #5", b="After #5") + "| Llama | H100 | 120 tok/s | 9 ms | |\n"
    assert claims.ab_table_figures(text) == {}


# ------------------------------------------------------------------------------------------------ paraphrases

def test_paraphrase_bisected_table_is_the_change_not_physics(tmp_path):
    """Written for this test (no thread): a bisect report on 8x H100 whose slower figure fits a band, table A/B."""
    r = ticket(tmp_path, "# Decode throughput regression after PR #4411\n\n"
               "Bisected on one node of 8x H100 SXM, Llama 3.1 70B, TP=8, vLLM, concurrency 1. The regression appears "
               "after PR #4411.\n\n"
               + HEAD.format(a="Before #4411", b="After #4411")
               + "| meta-llama/Llama-3.1-70B-Instruct | H100, TP=8 | ~118.0 tok/s | ~86.5 tok/s | ~27% |\n")
    assert r["verdict"]["category"] == "other"
    assert finding(r, "ticket.engine_versions")["severity"] == "warning"


def test_paraphrase_speedup_table_is_no_regression(tmp_path):
    """A table where the build after the pull request is faster, and the text says it sped decode up: no A/B
    slowdown is read (the change is an improvement)."""
    r = ticket(tmp_path, "# PR #4411 speeds up decode\n\nOn 8x H100, Llama 3.1 70B, TP=8, PR #4411 made decode "
               "faster.\n\n" + HEAD.format(a="Before #4411", b="After #4411")
               + "| Llama-3.1-70B | H100, TP=8 | 86.5 tok/s | 118.0 tok/s | +36% |\n")
    assert finding(r, "ticket.engine_versions") is None


# ------------------------------------------------------------------- nightly wheels as PEP 440 writes them (ab33)

def test_vllm_45741_nightly_wheels_are_releases():
    """vllm-project/vllm#45741: "last healthy at vLLM `0.21.1rc1.dev169+ga6682d1d2` (..., 126.5 tok/s); first observed
    regressed at `0.21.1rc1.dev323+g1fc2cee50` (..., 17.57 tok/s)" on B300/GB300. A pre-release, development release
    and local label together are one release (packaging.python.org version specifiers): the release A/B is read and
    the software is what changed, `other` (was insufficient_data)."""
    r = report_json("ticket", str(UT29B / "vllm45741.md"))
    assert r["verdict"]["category"] == "other"
    f = finding(r, "ticket.engine_versions")
    assert any(e["expected"] == 126.5 for e in f["evidence"])


def test_pep440_release_with_every_segment_is_one_release():
    text = "Throughput regressed: vLLM 0.9.2rc2.post1.dev40+g12ab34c gives 41 tok/s, vLLM 0.9.1 gives 63 tok/s."
    assert [m.group(0) for m in claims._SEMVER.finditer(text)] == ["0.9.2rc2.post1.dev40+g12ab34c", "0.9.1"]


def test_pep440_local_label_is_not_a_figure():
    """A CUDA build label ("2.3.0+cu121") stays one release of its product; "1.5+ GB" is no release."""
    assert [m.group(0) for m in claims._SEMVER.finditer("torch 2.3.0+cu121 and 1.5+ GB free")] == ["2.3.0+cu121"]
