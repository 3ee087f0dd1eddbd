"""Issue 11 l: reporters' statements the claims layer did not read, in general form.

- One rank late (one_slow): a numbered member arriving, entering or reaching the collective last, named as the last
  or slowest, waited on by all the others, or still at work while they wait; all ranks arriving together rules it out.
- No gain said in words between two counted layouts (speedup, worded): "half the speed", "no faster", "about the same",
  "barely changes", "twice as fast", with which layout is which.
- Where the trouble starts by GPU count (count_scope), and topology.count_scope setting that count against the path
  matrix: the GPU it adds joining over a farther path is the topology's figure.

Real sentences and their URLs are in tests/data/statements_11l/sentences.toml; the paraphrases and negations there are
written for these tests, not from any case.
"""

from pathlib import Path

import pytest
import tomllib

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict
from rules.subject import Subject

DATA = Path(__file__).parent / "data" / "statements_11l"
S = tomllib.loads((DATA / "sentences.toml").read_text())


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def one_slow(text: str) -> list[claims.Claim]:
    return [c for c in claims.claims(said(text)) if c.kind == "one_slow" and not c.guess]


# ---------------------------------------------------------------- 1. straggler

@pytest.mark.parametrize("case", S["straggler"]["real"], ids=lambda c: c["text"][:40])
def test_real_straggler_sentences(case):
    found = [c for c in one_slow(case["text"]) if not c.negated]
    assert bool(found) == case["read"], case["url"]


@pytest.mark.parametrize("text", S["straggler"]["paraphrases"])
def test_one_rank_late_is_read(text):
    assert [c for c in one_slow(text) if not c.negated]


@pytest.mark.parametrize("text", S["straggler"]["negations"])
def test_all_ranks_together_rules_a_straggler_out(text):
    found = one_slow(text)
    assert found and all(c.negated for c in found)
    assert not claims.find(said(text), "one_slow")


@pytest.mark.parametrize("text", S["straggler"]["unread"])
def test_no_straggler_read_where_none_is_said(text):
    assert not claims.find(said(text), "one_slow")


# ---------------------------------------------------------------- 2. no gain in words

def worded(text: str) -> list[claims.Claim]:
    return claims.speedups(said(text))


def test_real_no_gain_sentences():
    nearly_identical, no_second_count, figure = S["no_gain"]["real"]
    (c,) = worded(nearly_identical["text"])
    assert (c.data["ratio"], c.data["small"], c.data["large"]) == (1.0, 2, 4) and c.data["worded"]
    assert not worded(no_second_count["text"])  # one count in the sentence: which layouts is not said here
    (c,) = worded(figure["text"])
    assert c.data["ratio"] == pytest.approx(1.9) and not c.data.get("worded")  # the figure wins over the words


@pytest.mark.parametrize("text,ratio,small,large", S["no_gain"]["paraphrases"])
def test_a_ratio_said_in_words_is_read_with_its_layouts(text, ratio, small, large):
    (c,) = worded(text)
    assert c.data["ratio"] == pytest.approx(ratio) and (c.data["small"], c.data["large"]) == (small, large)
    assert c.data["rounding"] == pytest.approx(0.1 * ratio)


@pytest.mark.parametrize("text", S["no_gain"]["negations"])
def test_no_ratio_where_it_is_ruled_out_hoped_or_not_between_layouts(text):
    assert not worded(text)


def test_a_worded_ratio_reaches_the_speedup_judgement(tmp_path):
    """"no faster" between TP2 and TP4 of a 70B model on A100s is judged against the predicted ratio like a figure."""
    (tmp_path / "issue.md").write_text("Llama-3-70B on 4x A100 80GB SXM with vLLM: TP=4 is no faster than TP=2 "
                                       "in tok/s. Is this expected?")
    facts = read_bundle([tmp_path])
    found = [f for f in evaluate(facts, ticket_predictions(facts)) if f.rule == "ticket.speedup_vs_expected"]
    assert found and "x1.00 from 2 to 4 GPUs" in found[0].title


# ---------------------------------------------------------------- 3. scope by GPU count

def scope(text: str) -> list[claims.Claim]:
    return [c for c in claims.count_scope(said(text)) if not c.guess]


@pytest.mark.parametrize("case", S["count_scope"]["real"], ids=lambda c: c["text"][:40])
def test_real_count_scope_sentences(case):
    found = scope(case["text"])
    if "bad_from" not in case:
        assert not found, case["url"]
        return
    assert (found[0].data["fine_upto"], found[0].data["bad_from"]) == (case["fine_upto"], case["bad_from"])


@pytest.mark.parametrize("text,fine,bad", S["count_scope"]["paraphrases"])
def test_the_count_where_it_changes_is_read(text, fine, bad):
    (c,) = scope(text)
    assert (c.data["fine_upto"] or 0, c.data["bad_from"]) == (fine, bad)


@pytest.mark.parametrize("text", S["count_scope"]["negations"])
def test_no_count_scope_where_none_is_said(text):
    assert not scope(text)


def _ticket(tmp_path, text: str, matrix: str):
    (tmp_path / "issue.md").write_text(text)
    (tmp_path / "topo.txt").write_text((DATA / matrix).read_text())
    facts = read_bundle([tmp_path])
    findings = evaluate(facts, ticket_predictions(facts))
    return [f for f in findings if f.rule == "topology.count_scope"], ticket_verdict(facts, findings)


def test_the_count_that_leaves_the_nvlink_island_is_the_topology(tmp_path):
    # NVIDIA/nccl#499's 8x V100 matrix: GPU0-3 all NVLink, GPU4 reaches GPU1-3 over SYS
    found, _ = _ticket(tmp_path, "The all-reduce is fine up to 4 GPUs but slow with 5 or more.",
                       "topo_m_8x_v100_nccl499.txt")
    (f,) = found
    assert f.category == "expected_physics" and "5 GPUs" in f.title and "GPU4 joins over SYS" in f.title
    assert [e.measured for e in f.evidence[1:]] == ["SYS", "NV1"]


def test_a_count_that_crosses_no_boundary_is_no_evidence(tmp_path):
    # the third V100 joins the first two over NVLink too: the count says nothing about the topology
    found, _ = _ticket(tmp_path, "It only gets slow with 3 or more GPUs.", "topo_m_8x_v100_nccl499.txt")
    assert not found


def test_the_count_that_crosses_sockets_on_a_pcie_box(tmp_path):
    # NVIDIA/nccl#428's 4x T4: GPU1-3 share a NUMA node (NODE), GPU0 sits on the other socket (SYS)
    found, _ = _ticket(tmp_path, "With CUDA_VISIBLE_DEVICES=1,2,3,0 it runs fine on three GPUs, but with four GPUs "
                       "the bandwidth drops.", "topo_m_4x_t4_nccl428.txt")
    (f,) = found
    assert "GPU0 joins over SYS" in f.title and f.evidence[1].expected == "NODE"


@pytest.mark.parametrize("text", [
    "It runs fine on 4 GPUs, but with 5 GPUs the training hangs at the first all-reduce.",
    "It works with up to 4 GPUs and crashes with an illegal memory access with 5 GPUs.",
    "It only fails with 5 or more GPUs: NCCL error unhandled system error.",
])
def test_a_failure_from_the_count_is_no_topology_figure(tmp_path, text):
    # the same nccl#499 matrix: a hang, crash or error where GPU4 joins over SYS is a fault of that path, not its pace
    found, verdict = _ticket(tmp_path, text, "topo_m_8x_v100_nccl499.txt")
    assert not found and verdict.category != "expected_physics"


@pytest.mark.parametrize("text", ["It fails to scale beyond 4 GPUs.",
                                  "With up to 4 GPUs it scales well, but with 5 GPUs it gets slower."])
def test_a_pace_from_the_count_is_still_the_topology(tmp_path, text):
    (f,), _ = _ticket(tmp_path, text, "topo_m_8x_v100_nccl499.txt")
    assert "GPU4 joins over SYS" in f.title


# ---------------------------------------------------------------- 5. the model in a container or service name

@pytest.mark.parametrize("text,key", S["served_name"]["named"])
def test_a_model_named_only_by_its_container_or_service_is_resolved(tmp_path, text, key):
    (tmp_path / "issue.md").write_text(text)
    model = Subject.of(read_bundle([tmp_path])).model
    assert model is not None and model.key == key


@pytest.mark.parametrize("text", ["Llama-2-7b-chat on one A100 decodes at 40 tok/s.",
                                  "qwen2-72b-instruct on 4x A100 decodes at 20 tok/s."])
def test_a_hyphen_after_the_release_is_still_the_size(tmp_path, text):
    """"llama-2-7b" is Llama 2 at 7B, not a release 2.7: the hyphenated release needs a size after it."""
    (tmp_path / "issue.md").write_text(text)
    model = Subject.of(read_bundle([tmp_path])).model
    assert model is not None and model.key in ("llama-2-7b", "qwen2-72b", "qwen2.5-72b")


# ---------------------------------------------------------------- 6. a serving benchmark's TPOT at its load

BENCH = """Llama-3.1-8B-Instruct on one H100 80GB SXM with vLLM.

```
{command}
============ Serving Benchmark Result ============
Successful requests:                     1000
Benchmark duration (s):                  120.5
Output token throughput (tok/s):         2100.2
Mean TTFT (ms):                          150.3
Mean TPOT (ms):                          13.9
Median TPOT (ms):                        13.5
Mean ITL (ms):                           13.8
==================================================
```
Is this TPOT normal?
"""


def _latency(tmp_path, command: str, said: str = ""):
    (tmp_path / "issue.md").write_text(BENCH.format(command=command) + said + "\n")
    facts = read_bundle([tmp_path])
    return [f for f in evaluate(facts, ticket_predictions(facts)) if f.rule == "ticket.latency_vs_expected"]


@pytest.mark.parametrize("command,said", [
    ("vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct --max-concurrency 32 --num-prompts 1000", ""),
    ("vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct --num-prompts 1000",
     "We ran it at --max-concurrency 32."),
    ("python benchmarks/benchmark_serving.py --backend vllm --num-prompts 1000", "The client keeps 32 concurrent "
                                                                                  "requests in flight."),
])
def test_a_benchmark_tpot_is_judged_at_the_load_the_ticket_states(tmp_path, command, said):
    (f,) = _latency(tmp_path, command, said)
    assert any("batch 32" in e.detail for e in f.evidence)


def test_no_judgement_without_one_load(tmp_path):
    # no load stated: a benchmark's mean is not one stream's figure
    assert not _latency(tmp_path, "vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct --num-prompts 1000")


def test_no_judgement_when_two_loads_are_named(tmp_path):
    assert not _latency(tmp_path, "vllm bench serve --max-concurrency 8 --num-prompts 200\n"
                                  "vllm bench serve --max-concurrency 32 --num-prompts 1000")
    assert not _latency(tmp_path, "vllm bench serve --num-prompts 1000", "We tried 8 concurrent requests and then 32 "
                                                                        "concurrent requests.")


def test_gpus_listed_by_uuid_cannot_be_placed_in_the_matrix(tmp_path):
    found, _ = _ticket(tmp_path, "With CUDA_VISIBLE_DEVICES=GPU-1abcdef,GPU-2abcdef,GPU-3abcdef,GPU-0abcdef it "
                       "runs fine on three GPUs, but with four GPUs the bandwidth drops.", "topo_m_4x_t4_nccl428.txt")
    assert not found

