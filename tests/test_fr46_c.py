"""Session s46, second read (fr46c): regressions the fixers' changes made, each proved by a probe against the
session's start (d1458dca) and mended by the lead. Probes are labelled probes (the reviewer's /tmp/fr46c files); the
near-misses keep the passes' intended readings (tests/test_known46b.py, tests/test_fr46_a1.py,
tests/test_known46a.py, tests/test_fr46_b2.py)."""

import pytest

from diagnose.artifacts import launch
from diagnose.evidence import Workload
from rules import claims


def _launch(text: str) -> list[Workload]:
    return [f for f in launch.parse(text, "issue.md") if isinstance(f, Workload)]


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


# launch.NOT_GOING_ON: a negation counts only where it governs a flag; flags added or switched to are the launch's.

@pytest.mark.parametrize("text, tp, eager", [
    ("1. Start the server with vllm serve /models/qwen2.5-72b --max-model-len 8192 on the 4x A100 box. Flags: "
     "--tensor-parallel-size 4 --enforce-eager (no other changes).", 4, True),  # probe t53
    ("I start vllm serve /models/qwen2.5-72b --max-model-len 8192 on 4x A100. The other flags are "
     "--tensor-parallel-size 4 --no-enable-prefix-caching.", 4, False),  # probe t50
    ("The server is started with vllm serve Qwen/Qwen2.5-72B-Instruct --max-model-len 8192 on 4x A100. We added "
     "--tensor-parallel-size 4 --enforce-eager earlier today and it hangs since.", 4, True),  # probe t22
    ("I run vllm serve Qwen/Qwen2.5-72B-Instruct --max-model-len 8192 on 4x A100. I switched to "
     "--tensor-parallel-size 4 last week and now it hangs at NCCL init.", 4, False),  # probe t20
    ("I run vllm serve Qwen/Qwen2.5-72B-Instruct --max-model-len 8192 on 4x A100. I also pass "
     "--tensor-parallel-size 4 because the model does not fit on one GPU.", 4, False),  # probe t21
])
def test_next_sentence_that_adds_flags_goes_on(text, tp, eager):
    assert any(w.tp == tp and w.eager == eager for w in _launch(text))


@pytest.mark.parametrize("text", [
    # near-misses (probes): a negation that governs the flag, a flag that did not help
    "I start llama-server -m model.gguf -ngl 99 on both cards. It is not faster with -sm row.",
    "I start llama-server -m model.gguf -ngl 99 on both cards. We do not pass -sm row.",
    "I start llama-server -m model.gguf -ngl 99 on both cards. Without -sm row it runs.",
    "I start llama-server -m model.gguf -ngl 99 on both cards. Adding -sm row did not help.",
])
def test_next_sentence_that_denies_its_flag_does_not_go_on(text):
    assert not any(w.extra.get("split_mode") for w in _launch(text))


# claims._TIMES_OUT_NOT_SEEN: a collective's timeout put as a condition, in the past or on another team's system.

@pytest.mark.parametrize("text", [
    "If the allreduce times out, the job restarts from the last checkpoint, that part works.",  # probe 41
    "On another team's cluster their allreduce times out, but ours never stops.",  # probe 60
    "In the past, when the allreduce times out, we set NCCL_IB_TIMEOUT=22; this time nothing stops.",  # probe 61
    "When the barrier times out, torchrun restarts the workers.",  # probe: a condition
])
def test_times_out_not_seen_now_is_no_hang(text):
    assert not [h for h in _hangs(text) if "tim" in h.lower()]


@pytest.mark.parametrize("text", [
    "After the upgrade the NCCL allreduce times out after 30 minutes on every run.",  # probe: seen now
    "ranks 1-3 enter ep2 and their allreduce times out at 10 min",  # find_string id 55590426872 (known46a)
])
def test_times_out_seen_is_still_a_hang(text):
    assert _hangs(text)


# claims._EN_STILL_OPEN: a cause not found is no fix not found.

def test_cause_not_found_keeps_the_past_hang_past():
    # probe 46
    text = ("On torch 2.1 the job used to hang at NCCL init. We have not found a root cause, it just went away with "
            "2.4. The actual problem now: step time is 2x slower than on one node.")
    assert not _hangs(text)


def test_workaround_not_found_keeps_the_hang_open():
    # probe b2 of fr46b (tests/test_fr46_b2.py holds it too): the near-miss that must stay
    text = ("Back when we moved to TP=4 the job hung at the first allreduce and we have not found a workaround.")
    assert _hangs(text)


# launch._without_full_stop: a prose command's sentence stops are not its values'.

@pytest.mark.parametrize("text, tp, model", [
    ("I start it with vllm serve Qwen/Qwen2.5-32B-Instruct --tensor-parallel-size 2. It is slow.", 2,
     "Qwen/Qwen2.5-32B-Instruct"),  # probe (fr46a 19.md's first sentence)
    ("I start the server with vllm serve meta-llama/Llama-3.1-70B-Instruct. I also pass --tensor-parallel-size 4 "
     "--enforce-eager to it.", 4, "meta-llama/Llama-3.1-70B-Instruct"),  # probe (fr46a 22.md)
    ("vllm serve . --tensor-parallel-size 4", 4, "."),  # near-miss: a pasted line keeps its "." (the current directory)
    ("I run vllm serve . --tensor-parallel-size 4 now.", 4, "."),  # near-miss (probe): a lone "." is no full stop
])
def test_prose_command_without_its_full_stops(text, tp, model):
    assert any(w.tp == tp and w.model == model for w in _launch(text))
