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


# --------------------------------------------- paraphrases: what differs between the two runs names the category

def _said(tmp_path: Path, title: str, body: str) -> dict:
    return ticket(tmp_path, f"# {title}\n\n{body}\n")


def test_paraphrase_eager_flag_ab_is_eager_mode(tmp_path):
    """With and without `--enforce-eager` on the same two A100s: the flag is what differs, and the slower run (28
    tok/s) is no physics since the same GPUs gave 52."""
    r = _said(tmp_path, "Decode slow on 2x A100 with vLLM",
              "Llama-2-13B, vLLM 0.5.4, tensor_parallel_size=2 on two A100 80GB SXM (NVLink), batch 1.\nWith "
              "`--enforce-eager` I get 28 tok/s. Without `--enforce-eager` (CUDA graphs on) the same machine gives 52 "
              "tok/s.\nIs 28 tok/s expected for this model?")
    assert r["verdict"]["category"] == "eager_mode"


def test_paraphrase_p2p_disable_ab_is_the_transport(tmp_path):
    """NCCL_P2P_DISABLE=1 on and off on the same NVLinked pair: NCCL then goes through host shared memory (NCCL
    environment variables, NCCL_P2P_DISABLE), the flag's category."""
    r = _said(tmp_path, "Slow TP=2 decode on two RTX 3090",
              "Llama-2-7B fp16, vLLM 0.4.0, TP=2 on two RTX 3090 with an NVLink bridge, batch 1.\nWith "
              "NCCL_P2P_DISABLE=1 set in our container I get 31 tok/s; after removing NCCL_P2P_DISABLE the same box "
              "gives 58 tok/s.\nIs 31 tok/s normal?")
    assert r["verdict"]["category"] == "shm_fallback"


def test_paraphrase_release_ab_outranks_the_fit(tmp_path):
    """Two releases on one machine, 92 against 61 tok/s: 61 fits its band, yet the same layout ran 92."""
    r = _said(tmp_path, "Slower after upgrading vLLM",
              "Llama-3-8B on 2x L40S, TP=2, batch 1, same machine and same command.\nvLLM 0.5.4: 92 tok/s. vLLM 0.6.3: "
              "61 tok/s.\nIs this expected?")
    assert r["verdict"]["category"] == "other"
    assert finding(r, "ticket.engine_versions")["severity"] == "warning"


def test_paraphrase_release_ab_within_noise_changes_nothing(tmp_path):
    """92 against 89 tok/s (3 %) between releases, no word of a regression: run-to-run noise, the fit stands."""
    r = _said(tmp_path, "vLLM 0.6.3 vs 0.5.4 decode",
              "Llama-3-8B on 2x L40S, TP=2, batch 1, same machine and same command.\nvLLM 0.5.4: 92 tok/s. vLLM 0.6.3: "
              "89 tok/s.\nIs this expected?")
    assert r["verdict"]["category"] == "expected_physics"


def test_paraphrase_ab_across_different_gpus_is_not_the_same_hardware(tmp_path):
    """140 tok/s on two A100s against 38 on two L4s is two machines: their boards' ratio, not a software A/B."""
    r = _said(tmp_path, "TP=2 decode on two machines",
              "Llama-3-8B, vLLM 0.6.3, TP=2, batch 1. On 2x A100 80GB SXM we get 140 tok/s; on 2x L4 the same command "
              "gives 38 tok/s.\nIs 38 tok/s expected on the L4s?")
    assert r["verdict"]["category"] == "expected_physics"
    assert finding(r, "ticket.engine_versions") is None


def test_negations_no_difference_between_releases(tmp_path):
    """"No difference between the two releases", "the upgrade is not the problem, 0.5.4 gave the same": no A/B gap,
    the fit of 61 tok/s stands."""
    for body in ("Llama-3-8B on 2x L40S, TP=2, batch 1. I tried vLLM 0.5.4 and vLLM 0.6.3: no difference between the "
                 "two releases, both give 61 tok/s.\nIs this expected?",
                 "Llama-3-8B on 2x L40S, TP=2, batch 1, vLLM 0.6.3: 61 tok/s. The upgrade from 0.5.4 is not the "
                 "problem, 0.5.4 gave the same.\nIs this expected?"):
        r = _said(tmp_path, "Decode on 2x L40S", body)
        assert r["verdict"]["category"] == "expected_physics", body
        assert finding(r, "ticket.engine_versions") is None, body  # no release change said to make a difference
