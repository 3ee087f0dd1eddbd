"""Concurrency as engines and benchmarks state it (s13-conc): llama-server's and Ollama's slot counts, TGI's request
cap, load generators' concurrency, llama-server's periodic progress lines, and a decode rate judged over the range a
stated load allows when the ticket does not say whether it is one stream's or the total. Real inputs:
tests/data/conc_lines/ and tests/data/slot_lines/ (public threads' lines as posted, SOURCES.md); the tickets and launch
lines below are written here as paraphrases and negations, not taken from any case."""

from pathlib import Path

import pytest

from diagnose.artifacts import issue_md, launch, parse_text
from diagnose.evidence import Measurement, Workload
from tests.conftest import measured_vs_expected

DATA = Path(__file__).parent / "data"


def _rates(text: str) -> list[tuple]:
    found = issue_md.parse(f"Server log:\n\n```\n{text}```\n", "issue.md")
    return [(m.metric, m.value, m.scope, m.concurrency) for m in found if isinstance(m, Measurement)]


@pytest.mark.parametrize("name, rate", [
    ("llamacpp25121_progress.log", 12.82),  # "n_decoded = ..., tg = ..., tg_3s = ..."
    ("club3090_1251_progress.log", 36.57),  # later builds: "n_gen = ..."
    ("lmstudio2011_progress.log", 3.62),  # no tg_3s, LM Studio's "[DEBUG]" lines between
])
def test_progress_lines_give_the_requests_last_running_mean(name, rate):
    assert _rates((DATA / "slot_lines" / name).read_text()) == [("decode_tok_s", rate, "per_stream", None)]


def test_a_request_whose_final_timings_are_pasted_is_read_once():
    # progress lines of task 409, then its own "eval time": the final figure, not the running mean beside it
    found = _rates((DATA / "slot_lines" / "club3090_1090_progress.log").read_text())
    assert [r for r in found if r[0] == "decode_tok_s"] == [("decode_tok_s", 32.3, "per_stream", None)]


def test_the_slot_count_the_server_printed_beats_its_launch():
    # b7079 opened 4 slots for "-np 1" (llama.cpp#17300): the log says what ran
    text = (DATA / "slot_lines" / "llamacpp17300_np1.log").read_text()
    progress = (DATA / "slot_lines" / "llamacpp25121_progress.log").read_text()
    assert _rates(text + progress) == [("decode_tok_s", 12.82, "per_stream", 4)]


def _slots(text: str, name: str = "x.log") -> list:
    records, _ = parse_text(text, name)
    return [(w.extra.get("parallel"), w.extra.get("parallel_flag"), w.batch) for w in records
            if isinstance(w, Workload) and "parallel" in w.extra]


@pytest.mark.parametrize("name, expected", [
    ("ollama9509_runner.log", [(1, "--parallel", None)]),  # the runner's --batch-size 512 is no decode batch
    ("deepresearch14_runner.log", [(2, "--parallel", None)]),  # quoted ("> "), --ollama-engine before --model
    ("ollama13814_config.log", [(1, "OLLAMA_NUM_PARALLEL", None)]),  # 0.14.2's server config map
    ("ollama10874_sched.log", [(1, "runner.parallel", None)]),  # the scheduler's runner line
    ("ollama6338_config.log", []),  # OLLAMA_NUM_PARALLEL:0 (0.3.5): Ollama picks, no count stated
])
def test_ollama_states_its_slots(name, expected):
    assert _slots((DATA / "conc_lines" / name).read_text(), name) == expected


@pytest.mark.parametrize("line, expected", [
    ("./llama-server -m qwen.gguf -c 16384 -np 4 -b 2048 -ngl 99", [(4, "--parallel", None)]),
    ("llama-server.exe --model qwen.gguf --parallel=2", [(2, "--parallel", None)]),
    ("llama-server -m qwen.gguf -np -1", []),  # -1: the server picks
    ("docker run --gpus=all -e OLLAMA_NUM_PARALLEL=3 -p 11434:11434 ollama/ollama", [(3, "OLLAMA_NUM_PARALLEL", None)]),
    ("We no longer set OLLAMA_NUM_PARALLEL=4 on this box", []),  # a setting said not to be in use
    ("mpirun -np 8 ./all_reduce_perf -b 8 -e 8G -g 1", []),  # a launcher's processes are no server's slots
])
def test_server_slots_in_launch_lines(line, expected):
    assert _slots(line) == expected


@pytest.mark.parametrize("line, concurrency, extra", [
    # written here with the flags as the tools' docs name them: genai-perf --concurrency
    # (https://github.com/triton-inference-server/perf_analyzer, genai-perf README), llmperf --num-concurrent-requests
    # (https://github.com/ray-project/llmperf), TGI --max-concurrent-requests
    # (https://huggingface.co/docs/text-generation-inference/reference/launcher)
    ("genai-perf profile -m gpt2 --service-kind openai --endpoint-type chat --concurrency 16 --streaming", 16, {}),
    ("python token_benchmark_ray.py --model m --num-concurrent-requests 8 --max-num-completed-requests 100", 8, {}),
    ("text-generation-launcher --model-id bigscience/bloom-560m --max-concurrent-requests 64", None,
     {"max_concurrent_requests": "64"}),
])
def test_load_generators_and_request_caps(line, concurrency, extra):
    (w,) = [r for r in launch.parse(line, "x") if isinstance(r, Workload)]
    assert (w.concurrency, w.extra) == (concurrency, extra)


TICKET = "# Is this normal?\n\nLlama 3.1 8B on one H100 80GB with vLLM: I get {rate} tok/s.{load}\n"


def _judged(tmp_path, rate, load):
    f = measured_vs_expected(tmp_path, "issue.md", TICKET.format(rate=rate, load=load))
    reading = next(e.measured for e in f.evidence if e.detail == "reading the figure fits")
    return f.category, reading, f.evidence[1].expected


@pytest.mark.parametrize("rate, load, reading", [
    (150, " Tested with 2 parallel requests.", "one stream's of 2"),  # one stream's pace at batch 2
    (200, " Tested with 2 parallel requests.", "all 2 streams' total"),  # too fast for one, right for two
    (200, " There were 32 concurrent users.", "between one stream's and all 32 streams' total"),
])
def test_a_rate_of_unknown_scope_inside_the_range_is_physics(tmp_path, rate, load, reading):
    category, fits, _ = _judged(tmp_path, rate, load)
    assert (category, fits) == ("expected_physics", reading)


def test_only_a_rate_below_both_readings_is_slow(tmp_path):
    category, _, band = _judged(tmp_path, 20, " Tested with 8 concurrent requests.")
    low, high = (float(x) for x in band.split("-"))
    assert category == "other" and 20 < low and high > 8 * low  # the range reaches the 8 streams' total


@pytest.mark.parametrize("load", [" Not in parallel.", " Started llama-server with -np 1."])
def test_negations_state_no_load(tmp_path, load):
    f = measured_vs_expected(tmp_path, "issue.md", TICKET.format(rate=130, load=load))
    assert "requests in flight" not in f.evidence[0].detail


def test_prompts_sent_at_once_are_the_load(tmp_path):
    # vllm bench serve's default request rate is inf: all --num-prompts in flight at t = 0
    # (https://docs.vllm.ai/en/stable/cli/bench/serve.html)
    f = measured_vs_expected(tmp_path, "issue.md", TICKET.format(
        rate=130, load=" Measured with `vllm bench serve --model m --num-prompts 8`."))
    assert "8 requests in flight (8 prompts sent at once" in f.evidence[0].detail


def test_a_server_cap_bounds_the_stated_load(tmp_path):
    f = measured_vs_expected(tmp_path, "issue.md", TICKET.format(
        rate=130, load=" Tested with 8 concurrent requests.\n\n```\nvllm serve meta-llama/Llama-3.1-8B-Instruct "
                       "--max-num-seqs 2\n```"))
    assert "2 requests in flight" in f.evidence[0].detail and "--max-num-seqs 2" in f.evidence[0].detail


@pytest.mark.parametrize("command, words", [
    # --max-concurrency caps what --num-prompts sends: the cap is the load
    ("vllm bench serve --model m --num-prompts 100 --max-concurrency 4",
     "4 requests in flight (the concurrency the ticket states)"),
    # SGLang's one-batch benchmark runs exactly that batch (its docs' form: `--batch 32`), a batch, not a load
    ("python -m sglang.bench_one_batch --model-path m --batch 4 --input-len 256 --output-len 32", "batch 4"),
])
def test_benchmark_settings_as_the_load(tmp_path, command, words):
    f = measured_vs_expected(tmp_path, "issue.md", TICKET.format(rate=130, load=f"\n\n```\n{command}\n```"))
    assert words in f.evidence[0].detail


def test_prompts_sent_at_a_request_rate_are_no_load(tmp_path):
    f = measured_vs_expected(tmp_path, "issue.md", TICKET.format(
        rate=130, load="\n\n```\nvllm bench serve --model m --num-prompts 8 --request-rate 2\n```"))
    assert "requests in flight" not in f.evidence[0].detail


def test_a_genai_perf_prompt_pool_is_no_load(tmp_path):
    """genai-perf's --num-prompts sizes its prompt pool; without --concurrency it sends one request at a time
    (perf_analyzer's default), so the pool is not N requests in flight as vLLM's --num-prompts at rate inf is."""
    f = measured_vs_expected(tmp_path, "issue.md", TICKET.format(
        rate=130, load="\n\n```\ngenai-perf profile -m m --num-prompts 8 --tokenizer m\n```"))
    assert "requests in flight" not in f.evidence[0].detail


def test_a_load_capped_at_one_is_not_worded_as_n_in_flight(tmp_path):
    """8 concurrent requests against a server that decodes one at a time (--max-num-seqs 1): the figure is judged at
    batch 1 and the evidence says why, not "8 requests in flight stated"."""
    f = measured_vs_expected(tmp_path, "issue.md", TICKET.format(
        rate=130, load=" Tested with 8 concurrent requests.\n\n```\nvllm serve meta-llama/Llama-3.1-8B-Instruct "
                       "--max-num-seqs 1\n```"))
    assert "8 requests in flight" not in f.evidence[0].detail
    assert "engine decodes one request at a time" in f.evidence[0].detail
