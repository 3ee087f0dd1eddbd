"""llama-server's per-slot timings and SGLang's prefill lines (s12-slotlines): each figure with its scope and the load
its own output states. Real inputs: tests/data/slot_lines/ (public threads' lines as posted, SOURCES.md); the launch
lines, Windows line ends and the mpirun line are written here, not taken from those threads."""

from pathlib import Path

import pytest

from diagnose.artifacts import issue_md, serving_bench
from diagnose.evidence import Measurement

DATA = Path(__file__).parent / "data" / "slot_lines"


def _figures(text: str, metric: str) -> list[Measurement]:
    found = issue_md.parse(f"Server log:\n\n```\n{text}```\n", "issue.md")
    return [m for m in found if isinstance(m, Measurement) and m.metric == metric]


@pytest.mark.parametrize("name, prefill, decode", [
    ("llamacpp23269.log", 34.22, 11.92),  # "slot print_timing: id 0 | task 388 |" header, pid prefixes
    ("llamacpp23279.log", 769.93, 76.07),  # the rates without their header
    ("llamacpp9013_server.log", 768.49, 245.13),  # older builds: "print_timings] ... id_slot=0 id_task=0"
])
def test_slot_rates_are_one_stream_at_an_unknown_load(name, prefill, decode):
    text = (DATA / name).read_text()
    for metric, value in (("prefill_tok_s", prefill), ("decode_tok_s", decode)):
        assert [(m.value, m.scope, m.concurrency) for m in _figures(text, metric)] == [(value, "per_stream", None)]


@pytest.mark.parametrize("launch, slots", [
    ("$ ./llama-server -m qwen.gguf -c 16384 -np 4 -ngl 99\n", 4),
    ("llama-server.exe --model qwen.gguf --parallel=2\n", 2),
    ("srv    load_model: initializing slots, n_slots = 3\n", 3),  # the server's own start-up line
    ("mpirun -np 8 ./train\n", None),  # a launcher's process count is no server's slots
    ("./llama-server -m a.gguf -np 2\n./llama-server -m a.gguf -np 4\n", None),  # two counts: not known which
])
def test_the_slot_count_the_launch_states_is_the_load(launch, slots):
    text = launch + (DATA / "llamacpp23269.log").read_text()
    assert {m.concurrency for m in _figures(text, "decode_tok_s")} == {slots}


def test_the_slot_count_holds_only_for_slot_lines():
    # llama-cli's perf print (one sequence, no slot header) keeps its load unknown beside a server's launch line
    text = ("./llama-server -m a.gguf -np 4\n"
            "llama_perf_context_print:        eval time =   14085.85 ms /   178 runs   (   79.13 ms per token,"
            "    12.64 tokens per second)\n")
    assert [(m.value, m.concurrency) for m in _figures(text, "decode_tok_s")] == [(12.64, None)]


def test_windows_line_ends_read_the_same():
    text = "./llama-server -m a.gguf -np 4\n" + (DATA / "llamacpp23269.log").read_text()
    crlf = text.replace("\n", "\r\n")
    assert [(m.metric, m.value, m.concurrency) for m in _figures(crlf, "decode_tok_s")] == [("decode_tok_s", 11.92, 4)]


@pytest.mark.parametrize("name, expected", [
    ("sgl30047.log", [(16.23, 2), (1292.14, 10), (2114.79, 26), (21186.13, 40)]),  # new + running requests
    ("llamabenchy15_sglang.log", [(45.65, 1), (46.04, 1), (46.04, 1)]),  # throughput before "cuda graph"
    ("sgl4759.log", []),  # 2025's "Prefill batch." prints no throughput: no prefill figure
])
def test_sglang_prefill_lines_are_aggregate_at_their_load(name, expected):
    text = DATA.joinpath(name).read_text()
    assert serving_bench.detect(text) == 0.9
    found = [m for m in serving_bench.parse(text, name) if m.metric == "prefill_tok_s"]
    assert [(m.value, m.concurrency) for m in found] == expected
    assert all(m.scope == "aggregate" for m in found)


@pytest.mark.parametrize("name, rate, running", [("sgl30047.log", 155.34, 40), ("sgl4759.log", 39.33, 32)])
def test_sglang_decode_lines_with_a_comma_or_a_period(name, rate, running):
    text = DATA.joinpath(name).read_text()
    found = [m for m in serving_bench.parse(text, name) if m.metric == "decode_tok_s"]
    assert [(m.value, m.concurrency, m.scope) for m in found] == [(rate, running, "aggregate")]
