"""Precision review (session s35, pass review35) of three merged passes, issue 11: by_design.toml's four rows of
bydesign35, normal35's wider `_about_performance`, and bigpaste35's catalog-message cache. A `healthy` answer to a
ticket with a real fault is the worst wrong answer (the ticket gets closed), so each probe below is a fault, or a
speed complaint, written beside the behaviour a row explains; the row must stay silent and the ticket must not be
called healthy. Every probe and its result before and after is in tests/data/s35review/NOTES.md.

(tests/test_review35.py and tests/data/review35 belong to an older pass of the same name, session 28.)"""

import pytest
from conftest import judged_issue
from test_bydesign31 import documented, said

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import catalog, claims

# -------------------------------------------------------------------------------- by_design.toml: a fault beside

FAULT_BESIDE = [
    # cuda_device_order: the numbers differ AND the work lands on a busy GPU and runs slower
    ("cuda_device_order",
     "# Job runs on a GPU already in use\n\nI selected GPU 2 with CUDA_VISIBLE_DEVICES=2, but nvidia-smi shows the "
     "process on GPU 0, which is already 100% used by another job, so both jobs are now much slower."),
    # ... the reporter sets the numbering aside: the ticket is about the all-reduce
    ("cuda_device_order",
     "# TP=2 all-reduce slow\n\nThe device numbers don't match nvidia-smi, but that is not the problem: the all-reduce "
     "takes 40 ms per layer with TP=2 on our two A6000s."),
    # gpu_utilization_is_time: the reading stays after the work ended (a context or kernel left behind)
    ("gpu_utilization_is_time",
     "# GPU-Util at 100% even when the model finished\n\nGPU utilization stays at 100% even after the inference "
     "finished, until I reboot. The card is hot (89C) and the fans spin."),
    # ... the question comes with a shortfall of speed (MFU)
    ("gpu_utilization_is_time",
     "# my colleague says\n\nMy colleague says the utilization is the percentage of SMs in use. Is that true? Our 2x "
     "A100 TP run reaches only 40% MFU."),
    # gpu_not_shared_between_pods: no pod holds the GPU, or the node advertises none
    ("gpu_not_shared_between_pods",
     "# first pod also pending\n\nOur pods can't share the GPU? Even the first pod is pending with Insufficient "
     "nvidia.com/gpu, the node has a T4 and nothing else runs on it."),
    ("gpu_not_shared_between_pods",
     "# device plugin not running\n\nA new pod is pending because of insufficient nvidia.com/gpu. The device plugin is "
     "not running on the node after the driver upgrade."),
    ("gpu_not_shared_between_pods",
     "# Second pod pending, node has 8 GPUs\n\nThe second pod stays pending waiting for nvidia.com/gpu, although the "
     "node has 8 A100 GPUs and the first pod only requests 1."),
    # ... the reporter knows the behaviour already; a free GPU and a pending pod is the question
    ("gpu_not_shared_between_pods",
     "# pods, known\n\nI know pods can't share a GPU. Our single pod on a node with one free A10 is pending for "
     "nvidia.com/gpu."),
    ("gpu_not_shared_between_pods",
     "# allocatable 0\n\nNew pod stays pending for GPU. kubectl describe node: Capacity nvidia.com/gpu: 4, Allocatable "
     "nvidia.com/gpu: 0."),
    # container_sees_all_gpus: the default, with a slowdown beside it
    ("container_sees_all_gpus",
     "# all GPUs in the container\n\nBy default the container sees all GPUs since we request none, and since then our "
     "vLLM TP=2 server in it is much slower than on the host."),
]


@pytest.mark.parametrize("key,text", FAULT_BESIDE, ids=[f"{k}-{i}" for i, (k, _) in enumerate(FAULT_BESIDE)])
def test_a_fault_beside_the_behaviour_is_not_called_normal(tmp_path, key, text):
    verdict, findings = said(tmp_path, text)
    assert documented(findings) != key
    assert verdict.category != "healthy"


# The same rows on the behaviour alone still answer it (the tightened `unless` keeps them).
STILL_DOCUMENTED = [
    ("cuda_device_order", "# ordinal question\n\nDoes the CUDA device id always match the GPU id in nvidia-smi?"),
    ("gpu_utilization_is_time",
     "# Memory utilization meaning\n\nMemory utilization is 3% but 70 GB used. What does memory utilization mean in "
     "nvidia-smi?"),
    ("gpu_not_shared_between_pods",
     "# users\n\nMultiple users can't share a GPU in our JupyterHub on k8s: the next notebook pod remains pending for "
     "the GPU."),
    ("container_sees_all_gpus",
     "# all GPUs available in the container by default\n\nBy default, all GPUs are available in the container. Is that "
     "expected? I expected no GPU since I didn't pass --gpus."),
]


@pytest.mark.parametrize("key,text", STILL_DOCUMENTED, ids=[k for k, _ in STILL_DOCUMENTED])
def test_the_behaviour_alone_is_still_explained(tmp_path, key, text):
    verdict, findings = said(tmp_path, text)
    assert documented(findings) == key
    assert verdict.category == "healthy"


def test_slower_fragment_is_one_wording():
    """The rows that stay silent beside a speed complaint read it from one fragment, not copies."""
    rows = {r["key"]: r for r in catalog.documented_behaviours()}
    slower = catalog.FRAGMENTS["slower"]
    for key in ("cuda_device_order", "gpu_utilization_is_time", "container_sees_all_gpus",
                "gpu_not_shared_between_pods"):
        assert slower in rows[key]["unless"], key


# -------------------------------------------------------------------- _about_performance: not a speed comparison

NOT_ABOUT_SPEED = [
    # Hugging Face Accelerate's CLI, a memory question
    "# accelerate config\n\nI ran accelerate config and accelerate launch on 2x A6000; nvidia-smi shows both GPUs at "
    "48 GB used. Is that expected?",
    # a deployment that scales out, a topology question
    "# NVLink topology\n\nnvidia-smi topo -m on our 8x H100 shows NV18 between all pairs. We plan to scale out to 4 "
    "nodes. Is this topology normal?",
]


@pytest.mark.parametrize("text", NOT_ABOUT_SPEED)
def test_the_library_or_a_deployment_is_no_speed_comparison(text):
    verdict, found = judged_issue(text)
    assert "ticket.symptom_prior" not in found or found["ticket.symptom_prior"].category != "expected_physics"
    assert verdict.category != "expected_physics"


@pytest.mark.parametrize("text", [
    "Does tensor parallelism accelerate inference on 2x A10G compared to one? With TP=2 we get the same tokens, is it "
    "normal?",
    "vLLM TP=4 on 4x A100 doesn't scale over TP=2 for our 13B model at batch 1, is this expected?",
    "TP=2 on 2x L40S scales poorly with more GPUs for Llama-3-8B. Is this normal?",
])
def test_the_verbs_of_speed_still_get_the_prior(text):
    verdict, found = judged_issue(text)
    assert found["ticket.symptom_prior"].category == "expected_physics"


# ------------------------------------------------------------------------- claims._catalog_messages' cache

ERROR_A = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
ERROR_B = "RuntimeError: CUDA error: an illegal memory access was encountered"


def _ticket(text: str) -> Facts:
    """A pasted issue whose one code block is `text`, read as `diagnose ticket` reads it."""
    facts = Facts()
    facts.add(*issue_md.parse(f"# TP=2 fails\n\nvLLM with TP=2 fails:\n\n```\n{text}\n```\n", "issue.md"))
    return facts


def _errors(facts: Facts) -> list[tuple[str, str]]:
    return [(c.source, c.data["error"].id) for c in claims.known_errors(facts)]


def test_the_cache_gives_each_ticket_its_own_messages():
    a, b = _ticket(ERROR_A), _ticket(ERROR_B)
    first_a, first_b = _errors(a), _errors(b)
    assert first_a and first_b and first_a != first_b
    assert _errors(a) == first_a and _errors(b) == first_b  # asked again in the same process, in turn
    claims._MESSAGES.clear()
    assert _errors(b) == first_b  # the same as read fresh


def test_other_rows_on_the_same_text_are_searched_again():
    facts = _ticket(ERROR_A)
    rows = list(catalog.engine_errors())
    found = claims._catalog_messages(facts, rows)
    assert found
    named = {c.data["error"].id for c in found}
    fewer = [r for r in rows if r.id not in named]
    assert not {c.data["error"].id for c in claims._catalog_messages(facts, fewer)} & named


def test_a_caller_changing_its_claims_changes_nobody_elses():
    facts = _ticket(ERROR_A)
    rows = list(catalog.engine_errors())
    mine = claims._catalog_messages(facts, rows)
    mine[0].data["error"] = None
    mine[0].negated = True
    again = claims._catalog_messages(facts, rows)
    assert again[0].data["error"] is not None and not again[0].negated


def test_the_new_patterns_stay_bounded_on_long_lines():
    """Bounded patterns: no chain of unbounded repeats a long run of one character alone can take, nor one nested in
    another."""
    import re

    from benchmarks.regex_worst_case import runaway_repeats
    from rules.documented_behaviour import _KNOWN_ALREADY, _SET_ASIDE
    from rules.ticket_rules import _SPEED_VERB

    pods = next(r for r in catalog.documented_behaviours() if r["key"] == "gpu_not_shared_between_pods")
    patterns = [_SPEED_VERB, _SET_ASIDE, _KNOWN_ALREADY, re.compile(pods["unless"], re.I)]
    for pattern in patterns:
        assert runaway_repeats(pattern.pattern, pattern.flags) == [], pattern.pattern[:40]
