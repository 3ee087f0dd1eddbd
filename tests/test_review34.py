"""Issue 11 (review34): misfires of this session's readers found by probe sentences (tests/data/review34/NOTES.md).

- An engine the text compares with ("poor performance compared to vllm") is the reference arm, also where it is named
  again alone over its figures: another engine named goes first (diagnose.artifacts.text.engine_named).
- A llama.cpp row split denied with a glued "n't" ("I don't use -sm row") or set aside ("unlike -sm row"), or beside a
  layer split said in words ("the default layer split"), is no TP (issue_md.SPLIT_DENIED, LAYER_SPLIT).
- A P2P check said to pass of another host, an earlier time or some GPUs only is no check of this host
  (claims.p2p_check_said, weighed by rules.topology.p2p_seen_working).
"""

from pathlib import Path

import pytest

from diagnose.artifacts.text import engine_named
from diagnose.bundle import read_bundle
from diagnose.evidence import Workload
from rules import claims
from rules.common import engine_of, wfield
from rules.topology import p2p_seen_working

DATA = Path(__file__).resolve().parent / "data"


def _facts(tmp_path: Path, text: str):
    path = tmp_path / "ticket.md"
    path.write_text("# Tensor parallel run on my GPUs\n\n" + text + "\n")
    return read_bundle(path)


def test_the_engine_compared_with_in_the_title_is_not_the_one_that_ran():
    """InternLM/lmdeploy#1449: '[Bug] PyTorch Engine poor performance compared to vllm', then a 'vllm' header over
    vLLM's figures and 'LMDeploy: 0.3.0' under Reproduction. Before, vllm."""
    assert engine_of(read_bundle(DATA / "ut27b/lmdeploy1449.md")) == "lmdeploy"


@pytest.mark.parametrize("text,engine", [
    ("Poor throughput compared to vLLM\n\nvLLM\nthroughput: 10\n\nSGLang\nthroughput: 5", "SGLang"),
    ("Why is TGI 2x slower than vLLM on H100?\n\nvLLM: 2000 tok/s\nTGI: 1000 tok/s", "TGI"),
    ("Slow generation compared to llama.cpp\nollama run llama3\nllama.cpp gives 50 t/s", "ollama"),
    # near-misses: the compared engine is the only one named, or it is also the subject named first
    ("Slower than vllm.\nvllm: 3 tok/s", "vllm"),
    ("LMDeploy is slower compared to vllm.\nvllm: 300 tok/s\nlmdeploy: 200 tok/s", "LMDeploy"),
    ("We run vLLM 0.6.3. It is slower than TGI.", "vLLM"),
    # a release compared with is the same engine's; a library listed among the dependencies takes no engine's place
    ("Throughput dropped compared to vllm v0.4. Env: vllm 0.5, accelerate 0.30", "vllm"),
    ("Slower than TGI.\nTGI: 50 tok/s\nmine: 20 tok/s\n\npip list: transformers 4.40, accelerate 0.29", "TGI"),
])
def test_an_engine_compared_with_yields_to_another_named(text, engine):
    assert engine_named(text) == engine


@pytest.mark.parametrize("text,tp", [
    ("I don't use -sm row, just -ts 1,1,1", None),
    ("I didn't use -sm row; -ts 1,1 on two 3090s", None),
    ("Unlike -sm row, the default mode gives each GPU whole layers; I run -ts 1,1", None),
    ("I tried -sm row but it was slower, so I use -ts 1,1 with the default layer split", None),
    ("With --split-mode row and -ts 1,1,1 the 3 P40s are slow", 3),  # the row split that ran: TP over the three
])
def test_a_row_split_denied_or_beside_the_layer_split_is_no_tp(tmp_path, text, tp):
    assert wfield(_facts(tmp_path, text), "tp")[0] == tp


@pytest.mark.parametrize("text,seen", [
    ("P2P works between GPU0 and GPU1 but not GPU2.", False),
    ("In #1234 someone's p2p test passed, but mine hangs.", False),
    ("P2P is supported on A100 but not on 4090.", False),
    ("peer-to-peer is working on the old driver, but after the upgrade it hangs", False),
    ("The P2P check passed on the host but not inside the VM", False),
    ("P2P was working before the update", False),
    ("Other users report that P2P works with the patched driver.", False),
    ("P2P works only between GPU0 and GPU1", False),
    # the host's own checks stay read
    ("I checked and P2P works between all GPUs.", True),
    ("The simpleP2P test passed and NCCL still hangs.", True),
    ("After installing the tinygrad driver, P2P works.", True),
])
def test_a_p2p_check_of_another_host_time_or_pair_is_not_this_host(tmp_path, text, seen):
    facts = _facts(tmp_path, text)
    assert bool(claims.p2p_check_said(facts, "p2p_passed") or claims.p2p_check_said(facts, "p2p_ok")) is seen
    assert bool(p2p_seen_working(facts)) is seen


@pytest.mark.parametrize("text,kind", [
    # written over the template's placeholder: the reporter's words stay (before, the sentence was cut to its period)
    ("A clear and concise description of the bug: TP 4 is 2x slower than TP 2.", "scaling"),
    # the template's own sentence left in beside the reporter's: it still asks nothing
    ("**Expected behavior**\nA clear and concise description of what you expected to happen.\n\n"
     "The server hangs after loading.", "hang"),
])
def test_the_template_placeholder_is_only_the_templates_sentence(tmp_path, text, kind):
    said = claims.symptom_quote(_facts(tmp_path, text))
    assert said and said[2] == kind


def test_doubt_whether_the_devices_work_is_no_doubt_whether_they_are_used(tmp_path):
    """'working' left out of the doubt that the GPUs are used (_GPUS_USED_DOUBT): whether the devices work at all is
    a failure's question, not whether a run uses them; nvidia-smi's ERR! here is the error."""
    said = claims.symptom_quote(_facts(tmp_path, "I don't know whether the devices are properly working, nvidia-smi "
                                                 "shows ERR!"))
    assert not said or said[2] != "normal?"
    used = claims.symptom_quote(_facts(tmp_path, "I don't know if all gpus are correctly used during inference."))
    assert used and used[2] == "normal?"


@pytest.mark.parametrize("text,field,value", [
    # a default or a planned load is not the run's (count34's "concurrency is N" read the docs' default)
    ("The docs say concurrency is 8 by default, but I set --max-concurrency 64", "concurrency", 64),
    ("We expect 1000 concurrency in production but test with 16", "concurrency", None),
    ("The model supports 128k context; --parallel 1 is the default", "parallel", None),
    # the run's own values stay
    ("I used the default batch size of 8", "batch", 8),
    ("concurrency = 10, throughput 300 tok/s", "concurrency", 10),
    ("at batch size 32 we expected 2000 tok/s", "batch", 32),
    ("I set --parallel 8 --ctx-size 32768, each slot gets 4096", "parallel", 8),
])
def test_a_default_or_planned_load_is_not_the_runs(tmp_path, text, field, value):
    facts = _facts(tmp_path, text)
    if field == "parallel":
        got = next((w.extra["parallel"] for w in facts.of(Workload) if w.extra.get("parallel")), None)
    else:
        got = wfield(facts, field)[0]
    assert got == value
