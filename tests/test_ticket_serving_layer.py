"""A proxy, gateway or serving framework slower than the engine called on its own: host_bound (rules/ticket_layers.py).

The sentences are written the way operators compare the two paths, several layers and wordings each; none is copied
from a corpus case. Two public threads (tests/data/issues, sources in its README) and the one development case of
the batch are read whole."""

import shutil
from pathlib import Path

import tomllib

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note
from rules.engine import evaluate, ticket_verdict

CORPUS = Path(__file__).parent / "data" / "tickets"
SPLIT = tomllib.loads((CORPUS / "SPLIT.toml").read_text())
ISSUES = Path(__file__).parent / "data" / "issues"


def findings_of(text: str):
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    found = evaluate(facts)
    return ticket_verdict(facts, found), found


def layer_blamed(text: str) -> bool:
    verdict, found = findings_of(text)
    return any(f.rule == "ticket.serving_layer" for f in found) and verdict.category == "host_bound"


def test_the_development_case_is_host_bound(tmp_path):
    (src,) = [p for p in CORPUS.iterdir() if p.name.startswith("u11c14-")]
    assert src.name in SPLIT["development"]
    shutil.copytree(src, tmp_path / "t", ignore=shutil.ignore_patterns("expected.toml"))
    facts = read_bundle([tmp_path / "t"])
    assert ticket_verdict(facts, evaluate(facts)).category == "host_bound"


def test_public_threads_comparing_the_layer_with_the_engine_alone(tmp_path):
    for name in ("litellm-26699-triton-provider-5s-ttft.md", "ray-59681-serve-llm-vs-bare-vllm.md"):
        assert layer_blamed((ISSUES / name).read_text()), name


def test_paraphrases_across_layers():
    for text in (
        "Calling vLLM directly we get 0.8 s per request; through the LiteLLM proxy the same request is 3x slower.",
        "With bare SGLang the TTFT is 90 ms. Behind the API gateway we see much higher latency on the same prompts.",
        "The load balancer adds 400 ms to every request compared to hitting the server directly.",
        "Going straight to the TGI endpoint gives the full rate, but through Ray Serve the throughput drops by half.",
        "Our nginx reverse proxy is slower than sending requests to the Triton server directly.",
    ):
        assert layer_blamed(text), text


def test_negations_and_missing_baselines_are_not_the_layer():
    for text in (
        # ruled out by the reporter
        "Calling vLLM directly and through the LiteLLM proxy give the same latency; the proxy is not slower.",
        "We checked: the gateway adds no overhead, direct vLLM access and proxied requests both take 1.2 s.",
        # a layer named, no engine-alone figure beside it
        "Requests through the LiteLLM proxy are slow and I do not know why.",
        # NCCL's own proxy threads and its direct transport, and an MoE router: not a serving layer
        "NCCL INFO Channel 00 : 0[0] -> 1[1] via P2P/direct pointer. The NCCL proxy thread is slower on TP=4.",
        "The MoE router is slower with TP=2 than when I run the model directly on one GPU.",
    ):
        assert not layer_blamed(text), text
