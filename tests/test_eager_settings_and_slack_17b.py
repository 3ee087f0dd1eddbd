"""Issue 11, batch u17b: CUDA graphs off as a settings listing shows it, and a rate that fits its band only through the
prose slack beside an observed mechanism that costs that shortfall.

Written from vLLM's and TensorRT-LLM's documented switches (https://docs.vllm.ai/en/latest/configuration/optimization.html,
the CUDA graphs blog https://pytorch.org/blog/accelerating-pytorch-with-cuda-graphs/) and rules/catalog/gap_costs.toml;
none of the sentences is copied from a corpus case. The two development cases that showed the gaps (u17b02, a settings
table with "CUDA graphs | Disabled (enforce-eager)"; u17b04, --enforce-eager at 26 tok/s against a 30-48 band) are
checked last.
"""

import shutil
from pathlib import Path

import pytest
import tomllib

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict

CORPUS = Path(__file__).parent / "data" / "tickets"
SPLIT = tomllib.loads((CORPUS / "SPLIT.toml").read_text())


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


@pytest.mark.parametrize("text", [
    "| Setting | Value |\n|---|---|\n| CUDA Graph | off |",
    "Engine settings: max-num-seqs: 8, cuda graphs: disabled, kv cache dtype: fp8",
    "cudagraphs = no",
    "- CUDA graphs: false (we had capture errors earlier)",
    "CUDA-graphs | None",
])
def test_cuda_graphs_off_in_a_settings_listing_is_the_eager_flag(text):
    assert [c for c in claims.find(said(text), "eager_flag") if not c.guess]


@pytest.mark.parametrize("text", [
    "| CUDA graphs | Enabled |",
    "cuda graphs: on",
    "CUDA graphs = yes, max-num-seqs = 256",
    "| CUDA graph capture sizes | 1, 2, 4, 8 |",
])
def test_cuda_graphs_on_in_a_settings_listing_is_no_eager_flag(text):
    assert not claims.find(said(text), "eager_flag")


def test_a_settings_line_asked_about_is_a_guess():
    found = claims.find(said("Would CUDA graphs: off explain it?"), "eager_flag")
    assert found and all(c.guess for c in found)


def _bundle(tmp_path, text: str) -> Facts:
    (tmp_path / "issue.md").write_text(text)
    return read_bundle([tmp_path])


def _asked(rate: float) -> str:
    return ("# Decode speed question\n\nI serve meta-llama/Llama-3.1-8B-Instruct (bf16) with vLLM on one RTX 4090, "
            "started with `vllm serve meta-llama/Llama-3.1-8B-Instruct --enforce-eager`. A single request decodes at "
            f"{rate:g} tok/s. Is this what I should expect?\n")


def test_a_rate_below_the_low_edge_beside_eager_mode_is_eager_mode(tmp_path):
    facts = _bundle(tmp_path, _asked(30))  # the band is 33-60 tok/s: 10 % below its low edge, inside the prose slack
    findings = evaluate(facts)
    fit = next(f for f in findings if f.rule == "ticket.measured_vs_expected")
    assert fit.category == "expected_physics" and "below its low edge" in fit.title  # the slack fit is still reported
    assert ticket_verdict(facts, findings).category == "eager_mode"


def test_a_rate_inside_the_band_beside_eager_mode_stays_physics(tmp_path):
    facts = _bundle(tmp_path, _asked(40))  # inside 33-60: eager mode cost nothing the band can see
    assert ticket_verdict(facts, evaluate(facts)).category == "expected_physics"


def test_a_lead_no_cost_table_prices_is_still_demoted_by_a_slack_fit(tmp_path):
    # one CPU core at 100 % is host-side (host_bound, which gap_costs.toml does not price): the slack fit keeps the lead
    facts = _bundle(tmp_path, _asked(30).replace(" --enforce-eager", "") +
                    "\nWhile it decodes one CPU core sits at 100% and the GPU shows about 60% utilisation.\n")
    assert ticket_verdict(facts, evaluate(facts)).category != "host_bound"


@pytest.mark.parametrize("prefix,accepted", [("u17b02", {"other", "eager_mode"}), ("u17b04", {"eager_mode"})])
def test_the_development_cases(tmp_path, prefix, accepted):
    (src,) = [p for p in CORPUS.iterdir() if p.name.startswith(prefix + "-")]
    assert src.name in SPLIT["development"]
    dst = tmp_path / "t"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("expected.toml"))
    facts = read_bundle([dst])
    assert ticket_verdict(facts, evaluate(facts)).category in accepted
