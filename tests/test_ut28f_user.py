"""Defects found by answering real "slow" tickets whose thread settled that the benchmark measured something else
(session s28, pass ut28f, issue 11; tests/data/ut28f, SOURCES.md gives each thread's address, the answer it
established and the verdict before and after), fixed in general and tested on the paste that showed them, on real
lines of other threads, and on real near-misses:

- a script that sends one prompt per generation call in a loop was not read: its throughput is batch 1's, the engine
  never batches (diagnose.artifacts.issue_md._looped_requests, rule ticket.one_request_per_call);
- a figure written with its spread, "40.96 ± 0.37 t/s", was read as 0.37 t/s (diagnose.artifacts.figures.spread_mean);
- a rate that names its own weight format ("40.96 t/s in float16 and 166.02 t/s with int4") was judged with the one
  format the ticket names elsewhere (issue_md._figure_dtype);
- a figure beyond the roofline did not name tokens counted that were never generated among its causes
  (rules.beyond_roofline);
- Tenstorrent's accelerators were not another vendor's, so a ticket about one was asked for `nvidia-smi -q`
  (rules.claims._OTHER_VENDOR, rules.engine.fallback_ask).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement, Workload
from rules import claims
from rules.subject import Subject

DATA = Path(__file__).parent / "data" / "ut28f"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def _looped(block: str) -> list:
    return issue_md._looped_requests([(1, block)], "issue.md")


# --------------------------------------------------------------------------- one prompt per call, in a loop

def test_vllm_216_a_loop_of_single_prompts_is_a_batch_of_one():
    """vllm-project/vllm#216: 3-4x over HF instead of the advertised 25x; WoosukKwon (maintainer) answered to pass
    the whole dataset to one llm.generate call. The loop is read from the script, cited, and it decides the verdict
    over "nothing is broken"."""
    r = verdict("vllm216.md")
    assert r["verdict"]["category"] == "latency_bound_small_batch"
    lead = finding(r, "ticket.one_request_per_call")
    assert lead["severity"] == "warning"
    row = lead["evidence"][0]
    assert row["source"] == "vllm216.md:11" and row["measured"].startswith("for data in my_dataset:")
    assert "llm.generate(data" in row["measured"]
    assert "one call" in lead["fix"] and "concurrently" in lead["fix"]
    assert finding(r, "ticket.nothing_broken") is None


def test_a_name_made_from_the_item_in_the_loop_body_is_the_item():
    """vllm#216's Hugging Face loop tokenizes the item first and passes the ids: still one item per call."""
    block = ('for data in my_dataset:\n    input_ids = tokenizer(data)["input_ids"]\n'
             '    model.generate(input_ids, generation_config, max_new_tokens=128)\n')
    found = _looped(block)
    assert len(found) == 1 and found[0].batch == 1
    assert "model.generate(input_ids" in found[0].extra["one_call_per_item"]


@pytest.mark.parametrize("block", [
    # ELS-RD/kernl#145 (the paste): ten calls of one input, a warm-up loop, no item per call
    '    for _ in range(10):\n        model.generate(\n            inputs=input_ids["input_ids"],\n'
    '            min_length=22,\n            max_length=22,\n        )\n',
    # vllm-project/vllm#21616: one conversation timed ten times, the loop's counter never passed
    "  for i in range(10):\n    outputs = llm.chat(conversation, sampling_params)\n",
    # vllm-project/vllm#1707 (jpeig's comment): requests built in a comprehension and awaited together, concurrent
    "  tasks = [concept_generator(prompt, schema, temperature, frequency_penalty) for prompt, schema in "
    "zip(prompts, schemas)]\n  results = await asyncio.gather(*tasks)\n",
    # OpenNMT/CTranslate2#1127 (guillaumekln, maintainer): a loop over one call's streamed tokens
    "    for result in results:\n        print(result.token)\n        num_tokens += 1\n",
    # vllm-project/vllm#15947 (diggle001): benchmark_serving's loop starts each request as a task
    "    async for request in get_request(input_requests, request_rate):\n"
    "        prompt, prompt_len, output_len,mm_content = request\n"
    "        request_func_input = RequestFuncInput(\n            model=model_id,\n          prompt=prompt,\n"
    "        )\n        tasks.append(\n            asyncio.create_task(\n"
    "                request_func(request_func_input=request_func_input,\n                             pbar=pbar)))\n",
    # vllm-project/vllm#9540: users simulated as tasks, each picking a query
    "    for _ in range(num_users):\n        query = random.choice(queries)\n"
    "        task = asyncio.create_task(send_query(query, semaphore))\n",
    # Lightning-AI/lightning-thunder#2649: warm-up iterations of one input
    "        for _ in tqdm(range(self.config.warmup_iterations), disable=LOCAL_RANK != 0):\n"
    "            past_key_values.reset()\n"
    "            _ = self.measure_inference_step(input_ids, past_key_values, max_new_tokens=3)\n",
])
def test_loops_that_do_not_send_one_item_per_call_are_not_a_batch_of_one(block):
    assert _looped(block) == []


def test_a_call_started_as_a_task_in_the_loop_is_sent_with_the_others():
    """The loop of vllm#216 with each call handed to a task (as vllm#15947's benchmark does): the requests run
    together, the engine batches them."""
    block = ("for data in my_dataset:\n"
             "    tasks.append(asyncio.create_task(client.completions.create(model=m, prompt=data)))\n")
    assert _looped(block) == []


def test_a_loop_over_batches_is_no_batch_of_one():
    """The same loop over chunks of the dataset passes a batch to each call (the batching vLLM's answer asks for)."""
    block = ("for batch in batched(my_dataset, 64):\n"
             "    llm.generate(batch, sampling_params, ignore_eos=True)\n")
    assert _looped(block) == []


def test_kernl_145_warm_up_loop_is_answered_as_expected_not_as_a_client_artefact():
    """ELS-RD/kernl#145: pommedeterresautee (maintainer): the ten calls are a warm-up (JIT, CUDA graphs, clocks),
    "it's expected". No batch-of-one reading from the repeated calls of one input."""
    r = verdict("kernl145.md")
    assert r["verdict"]["category"] in ("healthy", "expected_physics")
    assert finding(r, "ticket.one_request_per_call") is None


# --------------------------------------------------------------------------- a figure and its spread

def test_prem_187_reads_the_mean_not_its_spread_and_each_figure_its_own_weights():
    """premAI-io/benchmarks#187: "40.96 ± 0.37 t/s in float16 and 166.02 ± 0.52 t/s with int4" on one L4."""
    rates = [m for m in issue_md.parse((DATA / "prem187.md").read_text(), "prem187.md")
             if isinstance(m, Measurement) and m.metric == "decode_tok_s"]
    assert [(m.value, m.dtype) for m in rates] == [(40.96, "fp16"), (166.02, "int4")]
    assert rates[0].said == "40.96 ± 0.37 t/s"


def test_prem_187_beyond_the_roofline_is_a_counting_artefact():
    """The reporter's own re-measurement settled it: the benchmark counted tokens after the end-of-sequence token;
    Mistral 7B in fp16 on an L4 (300 GB/s) cannot decode 41 tok/s at batch 1. Each number says where it came from."""
    r = verdict("prem187.md")
    assert r["verdict"]["category"] == "other"
    lead = finding(r, "ticket.measured_vs_expected")
    assert lead["severity"] == "warning" and "beats the roofline" in lead["title"]
    assert "never generated" in lead["summary"] and "end-of-sequence" in lead["fix"]
    rows = {e["detail"]: e for e in lead["evidence"]}
    assert rows["roofline (nothing real is faster)"]["source"] == "prediction:roofline"
    assert rows["roofline (nothing real is faster)"]["expected"] == pytest.approx(20.9, abs=0.2)
    assert rows["weights (named beside the figure)"]["measured"] == "fp16"


@pytest.mark.parametrize("line, value", [
    ("the reported performance is 40.96 ± 0.37 t/s", 40.96),  # premAI-io/benchmarks#187
    ("Generate:59.05s (152.6ms/T = 6.55T/s), Total:84.11s (4.60T/s)", 6.55),  # LostRuins/koboldcpp#852: no spread
])
def test_a_spread_gives_its_mean(line, value):
    rates = [m.value for m in issue_md.parse(line + "\n", "issue.md") if isinstance(m, Measurement)]
    assert rates[0] == value


def test_a_place_after_a_figure_is_no_weight_format():
    """tenstorrent/tt-inference-server#40: "around 400 tokens / sec on QuietBox" names a machine, not weights."""
    rates = [m for m in issue_md.parse((DATA / "tt40.md").read_text(), "tt40.md") if isinstance(m, Measurement)]
    assert rates and all(m.dtype is None for m in rates)


# --------------------------------------------------------------------------- another vendor's accelerator

def test_tt_40_is_tenstorrent_and_asks_for_no_nvidia_tool():
    """tenstorrent/tt-inference-server#40: 1.4 tok/s on one request against tt-metal's 400 tok/s at batch 32; the
    reporter settled it ("when I ran it in a batch, it was very fast!"). No NVIDIA tool describes a QuietBox."""
    r = verdict("tt40.md")
    assert r["verdict"]["category"] == "insufficient_data"
    assert "nvidia-smi" not in r["verdict"]["summary"] and "topo" not in r["verdict"]["summary"]


@pytest.mark.parametrize("text, vendor", [
    ("this model should run around 400 tokens / sec on QuietBox (which I am using)", "QuietBox"),
    ("Running Llama 3.1 70B on a Tenstorrent Wormhole n300 card", "Tenstorrent"),
    ("I was able to run float16 and int4 trt-llm benchmarks with mistral 7B on L4 GPU (GCP)", None),
    ("The hardware I used is a single v100-40G GPU.", None),
])
def test_tenstorrent_names_are_another_vendor(text, vendor):
    facts = said(text)
    facts.subject = Subject.of(facts)
    found = claims.other_vendor(facts)
    assert (found.data["name"] if found else None) == vendor


# --------------------------------------------------------------------------- near-misses and what is left

def test_tgi_383_a_slower_first_call_after_idle_is_no_client_artefact():
    """huggingface/text-generation-inference#383: faster right after a query, slower after a few seconds idle (a
    feature request; no cause settled). Not a warm-up inside the timing, not a batch-of-one client, not healthy."""
    r = verdict("tgi383.md")
    assert r["verdict"]["category"] not in ("healthy", "latency_bound_small_batch")
    assert finding(r, "ticket.one_request_per_call") is None


@pytest.mark.parametrize("name", ["kobold852.md", "powerinfer150.md", "lmeval2445.md"])
def test_left_pastes_give_no_wrong_verdict(name):
    """Left (SOURCES.md): their artefact (a rate over the requested length, a rate over prompt and output tokens,
    an evaluation harness's own batching) is not in their words in a form one general reading gives; they stay
    insufficient_data rather than a wrong cause."""
    assert verdict(name)["verdict"]["category"] == "insufficient_data"


def test_the_loop_is_a_workload_fact_not_a_verdict():
    """The parser states what the script does (batch 1, the loop quoted); the rule decides."""
    facts = issue_md.parse((DATA / "vllm216.md").read_text(), "vllm216.md")
    looped = [w for w in facts if isinstance(w, Workload) and w.extra.get("one_call_per_item")]
    assert len(looped) == 1 and looped[0].batch == 1


# --------------------------------------------------------------------------- a warm-up against a steady slowdown

@pytest.mark.parametrize("text, first_calls", [
    # MCPJam/inspector#155 (matteo8p, maintainer, on an Ollama model): the model loads on the first message
    ("I notice that when I spin up an Ollama model, the first message takes a while to process, but subsequent "
     "messages are fast.", True),
    # scikit-hep/awkward#3491 (kmohrman): the first run pays the kernels' compilation; the maintainers: expected
    ("When I run it multiple times, the first run is indeed longer than all the subsequent runs. For my large data "
     "file (which used to take ~50m before your PR), the first trial is close to 40s, while all subsequent trials "
     "are closer to 10s.", True),
    # sgl-project/sglang#1248 (RonanKMcGovern): a difference that stays after a warm-up is no warm-up
    ("Yeah I've run more inference tests including now an added warmup of similar length (although with a different "
     "start-phrase, to ensure the warmup isn't being cached). Still the second run (post warmup) is quite a bit "
     "faster than the first run (post warmup), not just on time to first token.", False),
    # huggingface/text-generation-inference#383: slower after a few idle seconds, every time, not at the start
    ("I see that my tokens/second almost go 1.5x higher when having run a very recent query. Wait for a couple of "
     "seconds and the speed is down again.", False),
])
def test_a_real_warm_up_is_read_and_a_steady_slowdown_is_not(text, first_calls):
    assert bool(claims.find(said(text), "first_calls_slow")) is first_calls


def test_mcpjam_155_the_words_alone_do_not_hold_the_warm_up():
    """MCPJam/inspector#155: "response times are quite slow" through the inspector, "within seconds" with `ollama
    run`; the maintainer asked whether only the first message is slow and closed it as expected (model loading).
    The reporter's words never say which message is slow: insufficient_data, not a guessed cause."""
    assert verdict("mcpjam155.md")["verdict"]["category"] == "insufficient_data"
