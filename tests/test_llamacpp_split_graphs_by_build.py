"""llama.cpp's layer split keeps its CUDA graphs in some builds only (engines.toml pp_graphs_flips, read from
ggml-backend.cpp's copy rotation): eager before b5505 (PR 13814), kept until b5922 (PR 14482 dropped the end-of-decode
scheduler reset), kept again from b5989 (PR 14870), lost from b8323 (PR 20463: no graph reuse with pipeline
parallelism) and kept from b8507 (PR 20927). A stated build picks its side in every command; none stated takes the
newest builds' figure and the band covering the eager twin too. Figures: XiongjieDai/GPU-Benchmarks-on-LLM-Inference's
4x RTX 4090 table (b2824), as tests/data/published has it."""

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import measured_vs_expected

from diagnose import published
from diagnose.cli import cli
from diagnose.errors import InputError
from rules import catalog
from rules.roofline import BUILD_UNSTATED, SPLIT_BUILDS

PUBLISHED = Path(__file__).parent / "data" / "published"
LLAMACPP = catalog.engine("llamacpp")


# one build below each cited merge and the merge's own build, then the merge day and the day before it
@pytest.mark.parametrize("builds, keeps", [
    (["b5504"], False), (["b5505"], True),    # PR 13814
    (["b5921"], True), (["b5922"], False),    # PR 14482
    (["b5988"], False), (["b5989"], True),    # PR 14870
    (["b8322"], True), (["b8323"], False),    # PR 20463
    (["b8506"], False), (["b8507"], True),    # PR 20927
    (["2025-05-26"], False), (["2025-05-27"], True), (["2026-03-11"], True), (["2026-03-12"], False),
    (["2024-09"], False), (["2026-08"], True),
])
def test_each_flip_is_at_its_merge_build(builds, keeps):
    assert catalog.split_graphs(LLAMACPP, builds) is keeps
    assert catalog.run_engine("llamacpp", catalog.gpu("rtx-4090"), builds=builds).pp_eager is not keeps
    assert catalog.build_decides(LLAMACPP, builds)


@pytest.mark.parametrize("builds", [[], ["2025-07"], ["2026-03"], ["b5000", "b6000"]])
def test_unstated_or_straddling_builds_decide_nothing(builds):
    """A month spanning a flip's day, or two builds on both sides, may have run either: the newest builds' figure."""
    assert catalog.split_graphs(LLAMACPP, builds) is None
    assert not catalog.build_decides(LLAMACPP, builds)
    assert catalog.split_build(LLAMACPP, builds).pp_eager is False


def _split_row(pp=4):
    rows = published.read(PUBLISHED / "llamacpp-xiongjiedai-rtx4090-layer-split-2024-05.csv")
    return next(r for r in rows if r.metric == "decode_tok_s" and r.model == "llama-3-8b" and r.dtype == "Q4_K_M"
                and r.pp == pp)


def test_a_split_row_is_predicted_as_its_build_ran_it():
    row = _split_row()
    assert row.builds == ("b2824",)  # the table's '# Build:' line
    eager, kept, lost, unstated = (published.expect(dataclasses.replace(row, builds=b))
                                   for b in (row.builds, ("b8600",), ("b8400",), ()))
    assert kept.expected > eager.expected * 1.05  # the graphs replay the split's ~600 small kernels
    assert lost.expected == eager.expected
    # unstated: the newest builds' figure, the band reaching down to the eager twin's
    assert unstated.expected == kept.expected and unstated.high == kept.high
    assert unstated.low == pytest.approx(eager.low)
    # the published rate of the b2824 build is healthy as its build ran, and as an unstated build
    assert eager.verdict(row.value) == unstated.verdict(row.value) == "inside"
    # one GPU: no split, nothing to flip (b8400 loses a split's graphs, b8600 keeps them; both run the same kernels a
    # layer, engines.toml kernel_bands, which b2824 does not)
    one = _split_row(pp=1)
    assert (published.expect(dataclasses.replace(one, builds=("b8600",))).expected
            == published.expect(dataclasses.replace(one, builds=("b8400",))).expected)


def test_a_bad_build_line_is_bad_input(tmp_path):
    text = (PUBLISHED / "llamacpp-xiongjiedai-rtx4090-layer-split-2024-05.csv").read_text()
    bad = tmp_path / "t.csv"
    bad.write_text(text.replace("# Build: b2824", "# Build: last week"))
    with pytest.raises(InputError, match="Build"):
        published.read(bad)


TICKET = '''description = "{framework} on 4x RTX 4090, Llama 3 8B Q4_K_M split by layers: {rate} tokens/s. Normal?"
[hardware]
gpu = "NVIDIA GeForce RTX 4090"
gpu_count = 4
[software]
framework = "{framework}"
[workload]
model = "Meta-Llama-3-8B-Instruct-Q4_K_M.gguf"
tp = 1
pp = 4
batch = 1
[[measured]]
metric = "decode_tok_s"
value = {rate}
tp = 1
pp = 4
batch = 1
'''


def _scaling(args):
    out = CliRunner().invoke(cli, ["scaling", *args, "--json"])
    return json.loads(out.output)["verdict"]["category"]


@pytest.mark.parametrize("build, rate, healthy", [
    # 96 tok/s: inside the eager split's band, below the one with graphs
    ("b8600", 96, False), ("b8400", 96, True), (None, 96, True),
    ("b8600", 120, True), ("b8400", 120, True),
])
def test_ticket_and_scaling_agree_on_a_stated_build(tmp_path, build, rate, healthy):
    framework = f"llama.cpp {build}" if build else "llama.cpp"
    f = measured_vs_expected(tmp_path, "ticket.toml", TICKET.format(framework=framework, rate=rate))
    assert (f.category == "expected_physics") is healthy
    # scaling judges one layout's rate as healthy or not (a single slow layout gives no verdict): on the ticket itself,
    # which states its build, and on the figure alone with --build
    assert (_scaling([str(tmp_path / "ticket.toml")]) == "expected_physics") is healthy
    csv = tmp_path / "s.csv"
    csv.write_text(f"layout,batch,metric,value,engine\nTP4,1,decode_tok_s,{rate},llamacpp\n")
    flags = ["--model", "llama-3-8b", "--gpu", "rtx-4090", "--quant", "Q4_K_M"] + (["--build", build] if build else [])
    assert (_scaling([str(csv), *flags]) == "expected_physics") is healthy
    unstated = any(BUILD_UNSTATED in e.detail and SPLIT_BUILDS in e.detail for e in f.evidence)
    assert unstated is (build is None)
