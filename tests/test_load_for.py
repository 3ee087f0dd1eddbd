"""One load per ticket (issue 11): rules.stated_load.load_for is the one place a figure's batch is chosen, for the
ticket's rate and latency rules and for the batch `capture` and `scaling` read from a launch line, so one ticket is
never priced at two loads. Real inputs, each stating its load another way:

- tests/data/normal_questions/sgl6681.md (https://github.com/sgl-project/sglang/issues/6681): a benchmark run with
  `--max-concurrency 512` ("Max reqeuest concurrency: 512");
- tests/data/normal_questions/lmdeploy210.md (https://github.com/InternLM/lmdeploy/issues/210): "batch size 1" in prose;
- tests/data/ut9a/habana204.md (https://github.com/HabanaAI/vllm-fork/issues/204): `--max-num-seqs 128`, no load;
- tests/data/slot_lines/llamacpp17300_np1.log (https://github.com/ggml-org/llama.cpp/issues/17300):
  llama-server `-np 1`;
- ../shared/tickets/058 (ticket.toml batch = 1 beside a launch line's `--max-num-seqs 1`);
- tests/data/published/lmdeploy-a100-static-llama-2-7b-ebe90bc.csv: a batch-16 ITL, its batch stated on the figure or
  once for the whole ticket.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import shared_path

from diagnose.bundle import read_bundle
from diagnose.capture_report import _workload
from diagnose.cli import cli
from diagnose.evidence import Measurement
from diagnose.scaling_inputs import _batch_of
from rules.engine import evaluate
from rules.stated_load import batch_words, load_for

DATA = Path(__file__).parent / "data"


def _facts(path: Path):
    facts = read_bundle([path])
    evaluate(facts)  # (names the subject, as every command does)
    return facts


@pytest.mark.parametrize("path,metric,n,kind", [
    (DATA / "normal_questions" / "sgl6681.md", "output_tok_s", 512, "concurrency"),
    (DATA / "normal_questions" / "lmdeploy210.md", "itl_ms", 1, "batch"),
])
def test_each_way_a_ticket_states_its_load_gives_one_load(path, metric, n, kind):
    facts = _facts(path)
    m = next(x for x in facts.of(Measurement) if x.metric == metric)
    load = load_for(facts, m)
    assert (load.n, load.kind) == (n, kind)
    # the words a finding prints name that load, never another
    words, _ = batch_words(facts, m)
    assert f"{n} requests in flight" in words if kind == "concurrency" else words.startswith(f"batch {n}")


@pytest.mark.parametrize("path,n,flag", [
    (DATA / "ut9a" / "habana204.md", 128, "--max-num-seqs"),  # no load stated: the engine's cap is its full load
    (DATA / "slot_lines" / "llamacpp17300_np1.log", 1, "--parallel"),  # llama-server -np 1: one slot
])
def test_a_launch_caps_alone_are_full_load_for_capture_and_scaling_only(path, n, flag):
    """A ticket's figure with no load stated is one stream's (batch 1 assumed, said so); `capture` and `scaling`
    read the engine's cap as the batch at full load. Both from load_for."""
    facts = _facts(path)
    assert load_for(facts) is None
    full = load_for(facts, full_load=True)
    assert (full.n, full.kind, full.cap[2]) == (n, "full load", flag)
    assert _batch_of(facts) == _workload(facts, None, None, None, None)[3] == n


def test_a_stated_batch_beside_a_cap_of_one_is_one_load(tmp_path):
    facts = _facts(shared_path("tickets", "058-sonar-1114-aphrodite-enforce-eager-tp2-3060"))
    rates = [m for m in facts.of(Measurement) if m.metric == "decode_tok_s"]
    assert rates and {load_for(facts, m).n for m in rates} == {1}
    assert _batch_of(facts) == _workload(facts, None, None, None, None)[3] == 1


def test_a_load_above_the_engines_cap_is_priced_at_the_cap_everywhere(tmp_path):
    """habana204's launch (--max-num-seqs 128) with a load above it, said as a paraphrase: the engine decodes 128 at a
    time and queues the rest, so the ticket's rules, `capture` and `scaling` all read 128, and the words say why."""
    folder = tmp_path / "capped"
    folder.mkdir()
    text = (DATA / "ut9a" / "habana204.md").read_text()
    (folder / "issue.md").write_text(text + "\nWe benchmark with 256 concurrent users.\n")
    facts = _facts(folder)
    load = load_for(facts)
    assert (load.n, load.kind) == (128, "concurrency") and "--max-num-seqs 128" in load.how
    assert _batch_of(facts) == _workload(facts, None, None, None, None)[3] == 128
    m = Measurement("issue.md:1", "decode_tok_s", 20.0, "tok/s", stat="reported")
    assert "128 requests in flight" in batch_words(facts, m)[0]


def _ticket(row: dict, on_figure: bool) -> str:
    batch = f"batch = {row['batch']}\n"
    return (f'description = "{row["model"]} {row["dtype"]} on {row["gpu"]} with {row["engine"]}: input length '
            f'{row["input_len"]}, output length {row["output_len"]}. Is this normal?"\n\n'
            f'[hardware]\ngpu = "{row["gpu"]}"\ngpu_count = {row["gpus_per_node"]}\n\n'
            f'[software]\nframework = "{row["engine"]}"\n\n'
            f'[workload]\nmodel = "{row["model"]}"\ndtype = "{row["dtype"]}"\n' + ("" if on_figure else batch)
            + f'\n[[measured]]\nmetric = "{row["metric"]}"\nvalue = {row["value"]}\ntp = {row["tp"]}\n'
            + (batch if on_figure else ""))


def test_a_batch_on_the_figure_or_in_the_layout_prices_the_figure_at_one_load(tmp_path):
    """LMDeploy's batch-16 ITL of Llama-2-7B on A100 (TP1, 2048 in / 128 out): the same figure stated with its batch,
    or with the batch once in [workload], is judged at batch 16 against one expected figure. (The latency rule read
    only the figure's own batch and the concurrency, so the layout's batch priced it at batch 1.)"""
    path = DATA / "published" / "lmdeploy-a100-static-llama-2-7b-ebe90bc.csv"
    lines = [ln for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    row = next(r for r in csv.DictReader(lines) if r["metric"] == "itl_ms" and r["batch"] == "16" and r["tp"] == "1"
               and r["input_len"] == "2048" and r["output_len"] == "128")
    seen = []
    for on_figure in (True, False):
        folder = tmp_path / str(on_figure)
        folder.mkdir()
        (folder / "ticket.toml").write_text(_ticket(row, on_figure))
        report = json.loads(CliRunner().invoke(cli, ["ticket", str(folder), "--json", "--fail-on", "never"]).stdout)
        judged = next(f for f in report["findings"] if f["rule"] == "ticket.latency_vs_expected")
        assert "batch 16" in judged["evidence"][0]["detail"], judged["evidence"][0]
        seen.append((judged["evidence"][0]["expected"], judged["category"], report["verdict"]["category"]))
    assert seen[0] == seen[1], seen


def test_more_requests_than_the_kv_cache_seats_are_priced_at_the_seats_and_said_to_be_a_bound(tmp_path):
    """A paraphrase of a TGI throughput ticket (Llama-2-7B fp16 on one H100, 2048-token prompts, 512 out, 96 requests
    in flight): the KV cache holds fewer sequences than that, so at most those decode together (the rest queue) and the
    finding prices the total at those seats, says 'at most', and cites the predictor's KV cache as the bound's source.
    (It was not judged at all: batch 96 does not fit.)"""
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "issue.md").write_text(
        "# Throughput\n\nLlama-2-7b-chat fp16 on one H100 80GB SXM with TGI 1.0.3, 2048-token prompts and 512 output "
        "tokens: with 96 concurrent requests the total throughput is 900 tok/s. Is this normal?\n")
    facts = _facts(folder)
    from rules.workload import predict_layout, seated

    seats = predict_layout(facts, 1, 1).max_concurrent_seqs
    assert 1 < seats < 96
    batch, p, bound = seated(facts, 1, 96)
    assert batch == seats and p.fits and bound.source.startswith("prediction:kv_cache")
    assert f"at most {seats} sequences fit the KV cache" in bound.detail
    report = json.loads(CliRunner().invoke(cli, ["ticket", str(folder), "--json", "--fail-on", "never"]).stdout)
    rate = next(f for f in report["findings"] if f["rule"] == "ticket.batched_rate")
    assert f"batch {seats} (at most" in rate["title"], rate["title"]
    assert any(e["source"].startswith("prediction:kv_cache") and e["expected"] == seats for e in rate["evidence"])
