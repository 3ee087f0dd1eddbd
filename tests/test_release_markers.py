"""Issue 10m: an engine named without its release is narrowed by what its material shows (engines.toml
release_markers: launch flags, log lines, environment variables, pinned versions), each marker tested on a line as the
engine prints it or its documentation writes it (the source in each case), on its negation and absence, and on two
markers that contradict each other; the band of vLLM Llama-3-8B TP8 on an H100 at batch 1 before and after."""

import json

import pytest
from conftest import diagnose

from diagnose.evidence import Facts, Workload
from rules import catalog, roofline
from rules.common import engine_releases
from rules.expectations import REPORTED_RATE_SLACK
from rules.roofline import RELEASE_UNSTATED, Layout

VLLM = ("vllm", "vllm-0.8", "vllm-0.11", "vllm-0.14")
TRTLLM = ("trtllm-0.5", "trtllm-xqa8", "trtllm-0.10", "trtllm")


def left(framework: str, *lines: str) -> tuple[tuple[str, ...], str]:
    """The release profiles a ticket naming `framework` (no release) keeps when its material holds `lines`."""
    facts = Facts(records=[Workload("issue.md:1", framework=framework)],
                  material=[("issue.md", "\n".join(lines))])
    releases, note = engine_releases(facts)
    return tuple(e.key for e in releases), note


@pytest.mark.parametrize("framework, line, keys", [
    # V0's stats line (https://github.com/vllm-project/vllm/issues/2595)
    ("vLLM", "(_AsyncLLMEngine pid=1974) INFO 01-25 11:26:53 llm_engine.py:706] Avg prompt throughput: 0.0 tokens/s, "
             "Avg generation throughput: 0.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache "
             "usage: 0.1%, CPU KV cache usage: 0.0%", ("vllm", "vllm-0.8")),
    # V1's (https://github.com/vllm-project/vllm/issues/19680)
    ("vLLM", "INFO 06-16 10:03:14 [loggers.py:87] Engine 000: Avg prompt throughput: 1254.4 tokens/s, Avg generation "
             "throughput: 29.2 tokens/s, Running: 10 reqs, Waiting: 4 reqs, GPU KV cache usage: 57.9%, Prefix cache "
             "hit "
             "rate: 40.5%", ("vllm-0.8", "vllm-0.11", "vllm-0.14")),
    # the V1 guide's way back to V0 (https://docs.vllm.ai/en/v0.10.0/usage/v1_guide.html), in a docker -e and an export
    ("vLLM", "docker run --gpus all -e VLLM_USE_V1=0 vllm/vllm-openai --model x", ("vllm", "vllm-0.8")),
    ("vllm", 'export VLLM_USE_V1="0"', ("vllm", "vllm-0.8")),
    # V0 multi-step scheduling (https://github.com/vllm-project/vllm/pull/7000), either spelling
    ("vLLM", "python -m vllm.entrypoints.openai.api_server --model meta-llama/Meta-Llama-3-8B --use-v2-block-manager "
             "--num-scheduler-steps 8", ("vllm", "vllm-0.8")),
    ("vLLM", "LLM(model=m, num_scheduler_steps=8)", ("vllm", "vllm-0.8")),
    # opt-in async scheduling (https://github.com/vllm-project/vllm/pull/19970)
    ("vLLM", "vllm serve Qwen/Qwen3-8B --async-scheduling", ("vllm-0.8", "vllm-0.11", "vllm-0.14")),
    # the graph mode setting (https://docs.vllm.ai/en/latest/design/cuda_graphs/)
    ("vLLM", """vllm serve m --compilation-config '{"cudagraph_mode": "FULL_DECODE_ONLY"}'""",
     ("vllm-0.8", "vllm-0.11", "vllm-0.14")),
    ("vLLM", "vllm serve m -O.cudagraph_mode=PIECEWISE", ("vllm-0.8", "vllm-0.11", "vllm-0.14")),
    # the benchmark CLI (https://github.com/vllm-project/vllm/pull/16690)
    ("vLLM", "vllm bench serve --model Qwen/Qwen2.5-VL-7B-Instruct --backend openai-chat "
             "--endpoint /v1/chat/completions",
     ("vllm-0.8", "vllm-0.11", "vllm-0.14")),
    # a pinned release: the image tag (https://github.com/vllm-project/vllm/pull/7412), a freeze line, the banner
    # (https://github.com/vllm-project/vllm/pull/23762)
    ("vLLM", "  - vllm/vllm-openai:v0.5.0.post1", ("vllm",)),
    ("vLLM", "vllm==0.11.2", ("vllm-0.11",)),
    ("vLLM", "INFO 08-28 08:41:58 [api_server.py:122] vLLM API server version 0.10.1rc2.dev310+g4f35be10a",
     ("vllm-0.8",)),
    # TensorRT-LLM: the unified build (https://github.com/NVIDIA/TensorRT-LLM/issues/1840), the server
    # (https://nvidia.github.io/TensorRT-LLM/0.18.2/commands/trtllm-serve.html), the benchmark
    # (https://github.com/NVIDIA/TensorRT-LLM/issues/2694), the release it prints on import
    ("TensorRT-LLM", "trtllm-build --checkpoint_dir ./tllm_ckpt --output_dir ./engine --gemm_plugin float16",
     ("trtllm-xqa8", "trtllm-0.10", "trtllm")),
    ("TensorRT-LLM", "trtllm-serve ${model_path} --max_batch_size 1024 --max_num_tokens 2048", ("trtllm",)),
    ("TensorRT-LLM", "trtllm-bench --model meta-llama/Llama-2-7b-hf throughput --dataset /tmp/synthetic_128_128.txt",
     ("trtllm",)),
    ("TensorRT-LLM", "[TensorRT-LLM] TensorRT-LLM version: 0.9.0", ("trtllm-xqa8",)),
    # TGI's and LMDeploy's images (https://github.com/vllm-project/vllm/pull/7412)
    ("TGI", "  - ghcr.io/huggingface/text-generation-inference:2.1", ("tgi",)),
    ("text-generation-inference", "docker run ghcr.io/huggingface/text-generation-inference:1.4 --model-id m",
     ("tgi-1.0",)),
    ("LMDeploy", "  - openmmlab/lmdeploy:v0.5.0", ("lmdeploy",)),
])
def test_a_marker_narrows_the_releases_and_says_where_it_was_read(framework, line, keys):
    got, note = left(framework, "we run it as below", line)
    assert got == keys
    assert "issue.md:2" in note and "release narrowed by" in note


@pytest.mark.parametrize("framework, line", [
    # nothing a release alone has: a plain launch, V1 asked for (every V1 release and the 0.7 opt-in have it)
    ("vLLM", "vllm serve meta-llama/Meta-Llama-3-8B-Instruct --tensor-parallel-size 8"),
    ("vLLM", "VLLM_USE_V1=1 vllm serve m"),
    ("vLLM", "--no-async-scheduling is what we pass"),  # (not the opt-in flag)
    ("TensorRT-LLM", "python3 convert_checkpoint.py --model_dir ./llama --output_dir ./ckpt"),
    # said as not in use, on its own line
    ("vLLM", "we do not set VLLM_USE_V1=0 anywhere"),
    ("vLLM", "we removed --num-scheduler-steps 8 last week"),
    ("TensorRT-LLM", "without trtllm-serve, through the Triton backend"),
    # a release left behind is not the one that ran
    ("vLLM", "we upgraded from vllm==0.6.3 last month"),
    ("TGI", "we migrated from ghcr.io/huggingface/text-generation-inference:1.4 to the new image"),
])
def test_absence_or_negation_leaves_every_release(framework, line):
    got, note = left(framework, line)
    assert got == tuple(e.key for e in catalog.release_candidates(framework)) and note == ""


def test_markers_that_contradict_leave_the_band_and_say_so():
    """V0's stats line (0.10 or earlier) and the 0.14 image cannot both be what ran."""
    got, note = left("vLLM", "Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs",
                     "image: vllm/vllm-openai:v0.14.1")
    assert got == VLLM and "contradict" in note and "issue.md:1" in note and "issue.md:2" in note


def test_two_markers_that_agree_narrow_to_what_both_allow():
    got, note = left("vLLM", "Engine 000: Avg prompt throughput: 3.1 tokens/s", "vllm==0.9.2")
    assert got == ("vllm-0.8",) and "Engine 000" in note and "vllm==0.9" in note


def test_a_stated_release_or_a_single_profile_engine_is_not_touched():
    assert left("vLLM 0.9.2", "Engine 000: Avg prompt throughput: 3.1 tokens/s") == ((), "")
    assert left("SGLang", "vllm==0.6.3") == ((), "")


def release_steps() -> tuple[dict, float, float]:
    """Llama-3-8B TP8 on H100 SXM at batch 1: each vLLM release's expected step (ms), and calibration.toml [band]."""
    model, gpu, layout = catalog.model("llama-3-8b"), catalog.gpu("h100-sxm"), Layout(tp=8)
    steps = {e.key: roofline.predict(model, gpu, layout, engine=e).decode_step_ms_expected
             for e in catalog.release_candidates("vLLM")}
    return (steps, *catalog.calibration().band)


def tops() -> tuple[float, float, float]:
    """The band's fast edge, V1's slow edge (the 0.8-0.10 releases') and every release's (V0's), in ms."""
    steps, low, high = release_steps()
    return steps["vllm-0.14"] * low, steps["vllm-0.8"] * high, steps["vllm"] * high


def ticket() -> str:
    """A prose ITL halfway between the two tops as a prose figure is read against them (each widened by
    rules.expectations.REPORTED_RATE_SLACK, the one slack of both commands): inside every release's band, above V1's."""
    _, v1_top, v0_top = tops()
    return (f"# slow decode\n\nLlama-3-8B with vLLM on 8x H100 SXM, tensor parallel 8, one request at a time: "
            f"{(v1_top + v0_top) / 2 / REPORTED_RATE_SLACK:.1f} ms per token. Is this normal?\n\n```\nvllm serve "
            "meta-llama/Meta-Llama-3-8B-Instruct --tensor-parallel-size 8\n```\n")


def test_the_vllm_8b_tp8_h100_band_before_and_after():
    """Llama-3-8B TP8 on H100 SXM at batch 1: named 'vLLM' alone, every release's band (V0's slow host step at the
    top); with V1's stats line in the material, V0 drops out and the band's top comes down to V1's."""
    model, gpu, layout = catalog.model("llama-3-8b"), catalog.gpu("h100-sxm"), Layout(tp=8)
    every = catalog.release_candidates("vLLM")
    kept, note = left("vLLM", "Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 133.2 tok/s")
    before = roofline.predict_any_build(model, gpu, layout, engine=every[-1], build_stated=True, releases=every)
    after = roofline.predict_any_build(model, gpu, layout, engine=every[-1], build_stated=True,
                                       releases=tuple(catalog.engine(k) for k in kept), release_note=note)
    step = before.decode_step_ms_expected
    assert after.decode_step_ms_expected == step  # the expected figure is the newest release's either way
    low, high = step * before.band_low, step * before.band_high
    # from the fastest release's step x calibration.toml [band] low to the slowest's x its high (2.33-8.89 ms under
    # session 16's x0.858..x1.354): 0.14's step at the bottom, V0's slow host step at the top, more than 3x wide
    steps, edge_low, edge_high = release_steps()
    assert min(steps, key=steps.get) == "vllm-0.14" and max(steps, key=steps.get) == "vllm"
    assert (low, high) == (pytest.approx(steps["vllm-0.14"] * edge_low), pytest.approx(steps["vllm"] * edge_high))
    assert high / low > 3
    assert step * after.band_low == pytest.approx(low)
    # V1 with piecewise graphs (0.8-0.10) is the slowest left
    assert max((k for k in steps if k != "vllm"), key=steps.get) == "vllm-0.8"
    assert step * after.band_high == pytest.approx(steps["vllm-0.8"] * edge_high)
    assert RELEASE_UNSTATED in before.assumptions["release"]
    release = after.assumptions["release"]
    assert "Engine 000" in release and "vllm-0.8, vllm-0.11, vllm-0.14" in release


V1_LINE = ("INFO 06-16 10:03:14 [loggers.py:87] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation "
           "throughput: 133.2 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.1%")


def latency_finding(folder, text):
    """The ticket.latency_vs_expected finding of a bundle holding one issue.md."""
    from diagnose.bundle import read_bundle
    from rules.engine import evaluate

    folder.mkdir()
    (folder / "issue.md").write_text(text)
    (f,) = [f for f in evaluate(read_bundle([folder])) if f.rule == "ticket.latency_vs_expected"]
    return f


def test_a_ticket_says_which_marker_narrowed_its_band(tmp_path):
    """A figure halfway between the two tops as prose is read against them (9.9 ms per token under session 16's x1.354
    band: V0's host step reaches 8.9 ms, 10.5 with the prose slack; V1's 7.9, 9.3): inside every release's band, above
    V1's once the pasted log shows the V1 engine ran."""
    fast, v1_top, v0_top = tops()
    plain = latency_finding(tmp_path / "plain", ticket())
    marked = latency_finding(tmp_path / "v1", ticket() + f"\n```\n{V1_LINE}\n```\n")
    assert f"expected {fast:.1f}-{v0_top:.1f} ms" in plain.title
    assert f"expected {fast:.1f}-{v1_top:.1f} ms" in marked.title
    assert plain.category == "expected_physics" and marked.category != "expected_physics"
    (unstated,) = [e.detail for e in plain.evidence if RELEASE_UNSTATED in e.detail]
    (narrowed,) = [e.detail for e in marked.evidence if "release narrowed by" in e.detail]
    assert "band covers vllm, vllm-0.8, vllm-0.11, vllm-0.14" in unstated
    assert "'Engine 000: Avg prompt throughput' (issue.md:10)" in narrowed
    assert "band covers vllm-0.8, vllm-0.11, vllm-0.14" in narrowed


def test_ticket_and_scaling_judge_the_marked_material_alike(tmp_path):
    """The same folders read by `ticket` and by `scaling`: both take the band the material leaves."""
    fast, v1_top, v0_top = tops()
    for name, text, top in (("plain", ticket(), v0_top), ("v1", ticket() + f"\n```\n{V1_LINE}\n```\n", v1_top)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "issue.md").write_text(text)
        report = json.loads(diagnose("ticket", folder, "--json", "--fail-on", "never").stdout)
        scal = diagnose("scaling", folder, "--model", "llama-3-8b", "--gpu", "h100-sxm", "--json", "--fail-on", "never")
        rows = json.loads(scal.stdout)["predictions"]["scaling"]["rows"]
        # (a row of the reporter's prose figure carries the allowance ticket gives such figures: rules.expectations
        # REPORTED_RATE_SLACK, since s11-11p)
        assert rows and all(r["band_high"] * r["expected_ms"] in (pytest.approx(top, abs=0.05),
                                                                 pytest.approx(top / REPORTED_RATE_SLACK, abs=0.1))
                            for r in rows)
        assert f"{fast:.1f}-{top:.1f} ms" in report["verdict"]["summary"]


def test_capture_reads_the_markers_of_its_recorded_command_line(tmp_path):
    """The bundled TP=4 capture's recorded vLLM command line, with and without --async-scheduling added to it: the
    flag drops V0 from the band capture judges the step against, and the finding's assumptions say why."""
    import shutil
    import sqlite3

    from conftest import REPO

    marked = tmp_path / "async.sqlite"
    shutil.copy(REPO / "samples" / "captures" / "tp4_nvlink_healthy.sqlite", marked)
    with sqlite3.connect(marked) as db:
        n = db.execute("SELECT count(*) FROM META_DATA_CAPTURE WHERE name LIKE 'PROCESS_0:ARGUMENT_%'").fetchone()[0]
        db.execute("INSERT INTO META_DATA_CAPTURE VALUES (?, ?)", (f"PROCESS_0:ARGUMENT_{n}", "--async-scheduling"))
    given = ("--model", "llama-3-70b", "--gpu", "h100-sxm", "--json", "--fail-on", "never")
    plain = json.loads(diagnose("capture", REPO / "samples" / "captures" / "tp4_nvlink_healthy.sqlite", *given).stdout)
    flagged = json.loads(diagnose("capture", marked, *given).stdout)
    before, after = plain["predictions"]["expected"], flagged["predictions"]["expected"]
    assert after["step_ms"] == before["step_ms"] and after["band"][1] < before["band"][1]
    assert RELEASE_UNSTATED in plain["predictions"]["roofline"]["assumptions"]["release"]
    note = flagged["predictions"]["roofline"]["assumptions"]["release"]
    assert "'--async-scheduling' (capture:async.sqlite META_DATA_CAPTURE:1)" in note
    assert "vllm-0.8, vllm-0.11, vllm-0.14" in note
