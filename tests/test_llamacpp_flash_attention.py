"""llama.cpp with flash attention on (-fa 1): a decode layer runs flash_attn_ext's vector kernel and its combine in
place of the unfused KQ, soft_max, KQV and cont (engines.toml fa_kernels, read in ggml-cuda's fattn-common.cuh), and
the published llama-bench rows say per row whether it was on (their fa column)."""

from pathlib import Path

import pytest

from diagnose import published
from diagnose.errors import InputError
from rules import catalog, step_model
from rules.roofline import predict
from rules.subject import model_named
from tests.test_llamacpp_profile import PUBLISHED

LHL_B6413 = "llamacpp-lhl-rtxpro6000-b6413.csv"  # `llama-bench -fa 1`, validation
LHL_B4006 = "llamacpp-lhl-rtx3090-rtx4090-mistral-7b-b4006.csv"  # `llama-bench ... -fa 1`, fit
XIONGJIEDAI_A40 = "llamacpp-xiongjiedai-a40-layer-split-2024-05.csv"  # 'no flash attention'


def _rows(table, metric=None):
    return [r for r in published.read(PUBLISHED / table) if metric is None or r.metric == metric]


def test_the_fa_column_says_what_each_source_states():
    assert {r.fa for r in _rows(LHL_B6413)} == {True}
    assert {r.fa for r in _rows(LHL_B4006)} == {True}
    assert {r.fa for r in _rows(XIONGJIEDAI_A40)} == {False}
    # PR 16630's master (2025-10) states no -fa, and llama-bench's default became auto at some build: not stated
    assert {r.fa for r in _rows("llamacpp-pr16630-rtx4090-qwen3-0.6b-f16-2025-10.csv")} == {None}


def test_a_bad_fa_value_is_one_clear_error(tmp_path):
    text = (PUBLISHED / LHL_B6413).read_text()
    bad = tmp_path / "bad.csv"
    bad.write_text(text.replace("decode_tok_s,278.95,1", "decode_tok_s,278.95,yes"))
    with pytest.raises(InputError, match=r"bad.csv:\d+: fa must be 1, 0 or empty, got 'yes'"):
        published.read(bad)


def _layer_kernels(engine, gpu="rtx-pro-6000-blackwell"):
    model = model_named("llama-2-7b")
    s = step_model.Setting(model, catalog.gpu(gpu), engine, catalog.calibration(), 1, "int4", "fp16",
                           catalog.interconnect("pcie4"), group="Q4_0")
    return step_model.pass_terms(s, sequences=1, tokens_per_seq=1, context=64, prefill=False).kernels


def test_flash_attention_runs_two_kernels_where_the_unfused_path_runs_four():
    """b6413 counts 19 kernels a decode layer: flash attention takes KQ, soft_max, KQV and cont (4) and runs its
    vector kernel and the combine of its parallel blocks (2), so 32 layers run 64 kernels fewer."""
    llamacpp = catalog.engine("llamacpp")
    off = catalog.build_profile(llamacpp, ("b6413",))
    on = catalog.build_profile(llamacpp, ("b6413",), fa=True)
    assert (off.flash_attention, on.flash_attention) == (False, True)
    assert catalog.build_profile(llamacpp, ("b6413",), fa=False) == off  # stated off: as not stated
    assert _layer_kernels(off) - _layer_kernels(on) == 32 * (4 - 2)


def test_a_split_and_the_eager_twin_keep_the_switch():
    """A split by layers before b5505 runs the eager twin (pp_eager); it launches the same attention kernels."""
    on = catalog.build_profile(catalog.engine("llamacpp"), ("b2824",), fa=True)
    twin = catalog.split_twin(on, 4)
    assert twin.key == "llamacpp-eager" and twin.flash_attention
    assert _layer_kernels(twin, "rtx-3090") < _layer_kernels(catalog.engine("llamacpp-eager"), "rtx-3090")


@pytest.mark.parametrize("table", [LHL_B4006, LHL_B6413])
def test_fa_rows_sit_closer_to_their_measured_rate_with_flash_attention(table):
    """Every -fa 1 tg128 row of lhl's notes (RTX 3090 and 4090 at b4006, fit; RTX PRO 6000 at b6413, validation) ran
    faster than the unfused count prices it; with flash attention's kernels each expected rate is higher, and so
    closer, yet still at or below the measured one (the rest of the gap is not flash attention's)."""
    for r in _rows(table, "decode_tok_s"):
        on = published.expect(r)
        off = published.expect(r, engine=catalog.build_profile(catalog.engine(r.engine), r.builds))
        assert off.expected < on.expected <= r.value


def test_flash_attention_changes_decode_not_the_prompt():
    """The prompt's attention is priced as one fused kernel either way (not modelled: its score traffic at pp512)."""
    model, gpu = model_named("llama-3-70b"), catalog.gpu("rtx-pro-6000-blackwell")
    llamacpp = catalog.engine("llamacpp")
    kw = dict(batch=1, prompt=512, output=128, dtype="int4", quant_group="Q4_K_M")
    off = predict(model, gpu, engine=catalog.build_profile(llamacpp, ("b6413",)), **kw)
    on = predict(model, gpu, engine=catalog.build_profile(llamacpp, ("b6413",), fa=True), **kw)
    assert on.decode_step_ms_expected < off.decode_step_ms_expected
    assert on.ttft_ms_expected == pytest.approx(off.ttft_ms_expected, rel=0.02)


def test_every_llamacpp_table_says_where_its_fa_comes_from():
    """The rule for the data: each llama.cpp table carries a '# Flash attention' line saying whether fa was stated,
    taken from the build's default, or left empty."""
    for path in sorted(Path(PUBLISHED).glob("llamacpp-*.csv")):
        assert "# Flash attention (fa column):" in path.read_text(), path.name


# --------------------------------------------------------------------------- the -fa default and launch lines


def _fa(builds, server=False, fa=None):
    return catalog.run_engine("llamacpp", catalog.gpu("rtx-4090"), builds=builds, fa=fa, server=server).flash_attention


def test_an_unstated_fa_takes_its_tools_default_for_the_build():
    """llama-server's -fa became auto (on for CUDA) in b6325 (PR 15434: a bare --flash-attn ran on b6303 and is
    refused on b6341, https://github.com/mostlygeek/llama-swap/issues/283); llama-bench's only in b9437 (PR 23714)."""
    assert (_fa(["b6303"], server=True), _fa(["b6341"], server=True)) == (False, True)
    assert (_fa(["b6341"]), _fa(["b8860"]), _fa(["b9437"]), _fa(["b10587"])) == (False, False, True, True)
    assert _fa(["2025-09"], server=True) and not _fa(["2025-08"], server=True)  # a month spanning the day: undecided
    assert not _fa([], server=True) and not _fa([])  # no build: the older default, as before
    assert not _fa(["b8860"], server=True, fa=False) and _fa(["b6303"], fa=True) and _fa([], fa="auto")


def _launch(line):
    from diagnose.artifacts import launch
    from diagnose.evidence import Workload

    return [w.extra for w in launch.parse(line, "l.sh") if isinstance(w, Workload)]


# https://github.com/ggml-org/llama.cpp/issues/22206 (build 8860, CUDA)
ISSUE_22206 = ("llama.cpp/build/bin/llama-server -fa on --host 0.0.0.0 -a default_model --port 8087 -m  "
               "./unsloth/Qwen3___6-35B-A3B-GGUF/Qwen3.6-35B-A3B-Q8_0.gguf  -ctk q4_0  -ctv q4_0  --no-mmap  --jinja  "
               "-c 128000 -b 1024")
# https://github.com/Dao-AILab/flash-attention/issues/1081 (2024-07: a bare -fa, before b6325's on|off|auto)
ISSUE_FA_1081 = ("CUDA_VISIBLE_DEVICES=0 ./llama-server --host 0.0.0.0 --port 8008 -m "
                 "/home/kemove/model/gemma-2-27b-it-Q5_K_S.gguf -ngl 99 -t 4 -np 4 -ns 4 -c 512 -fa")
# https://github.com/ggml-org/llama.cpp/issues/14201 (build 5614): numactl before it, a bare --flash-attn between flags
ISSUE_14201 = ('CUDA_VISIBLE_DEVICES="0," \\\nnumactl --physcpubind="8,10,12,14, 24,26,28,30, 9,11,13,15, 25,27,29,31" '
               "--membind=1 /home/ai/LLAMA_CPP/8f47e25f56e9792093b7497c68e9f80bab82ed19/llama.cpp/build/bin/"
               "llama-server \\\n--model /mnt/AI/LLM/DeepSeek-R1-UD-Q2_K_XL/"
               "DeepSeek-R1-UD-Q2_K_XL-00001-of-00006.gguf \\\n"
               "--threads 16 \\\n--n-gpu-layers 99 \\\n--temp 0.6 --top_p 0.95 --min_p 0.01 \\\n--ctx-size 32768 \\\n"
               "--flash-attn \\\n--override-tensor \".ffn_.*_exps.=CPU\"\n")


def test_a_launch_line_states_flash_attention_and_that_it_ran_llama_server():
    assert {"llamacpp_tool": "llama-server", "flash_attn": "on"} in _launch(ISSUE_22206)
    got = _launch(ISSUE_FA_1081)
    assert {"llamacpp_tool": "llama-server", "flash_attn": "on"} in got  # bare, last on the line
    assert {"parallel": 4, "parallel_flag": "--parallel"} in got
    assert {"llamacpp_tool": "llama-server", "flash_attn": "on"} in _launch(ISSUE_14201)
    assert {"llamacpp_tool": "llama-server"} in _launch(ISSUE_14201.replace("--flash-attn \\\n", ""))
    # negations and the numeric aliases of PR 15746 (-fa 1/0/-1)
    for said, values in {"off": ("off", "0", "disabled"), "on": ("1", "enabled"), "auto": ("auto", "-1")}.items():
        for v in values:
            assert {"llamacpp_tool": "llama-server", "flash_attn": said} in _launch(
                ISSUE_22206.replace("-fa on", f"-fa {v}")), v
    assert {"llamacpp_tool": "llama-server", "flash_attn": "off"} in _launch(
        ISSUE_22206.replace("-fa on", "--flash-attn=off"))
    # not stated: only that llama-server ran (its default is the build's: the rules' to say); a value llama.cpp
    # refuses is no statement
    assert _launch(ISSUE_22206.replace("-fa on ", "")) == [{"llamacpp_tool": "llama-server"}]
    assert _launch(ISSUE_22206.replace("-fa on", "-fa maybe")) == [{"llamacpp_tool": "llama-server"}]


def test_a_ticket_prices_the_attention_its_launch_line_and_build_state(tmp_path):
    """The same issue's text through read_bundle: its build (version: 8860) is after llama-server's switch, so the
    line's -fa on, a line without -fa (auto) and -fa 0 price flash attention on, on and off."""
    from diagnose.bundle import read_bundle
    from rules.subject import Subject

    def engine(line):
        (tmp_path / "issue.md").write_text(
            "# Misc. bug: llama-server crashed\n\n### Name and Version\n\n./llama-server --version\n"
            "version: 8860 (fd6ae4ca1)\n\n### Which llama.cpp modules do you know to be affected?\n\nllama-server\n\n"
            f"### Command line\n\n```shell\n{line}\n```\n")
        facts = read_bundle([tmp_path])
        return Subject.of(facts).engine

    on, unstated, off = (engine(ISSUE_22206), engine(ISSUE_22206.replace("-fa on ", "")),
                         engine(ISSUE_22206.replace("-fa on", "-fa 0")))
    assert (on.flash_attention, unstated.flash_attention, off.flash_attention) == (True, True, False)
