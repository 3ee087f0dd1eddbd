"""The benchmark sample is a real run's saved result, read as the README's example reads it.

samples/bench/llmd-llama-3.2-3b-l40s-tp1-dp4.json is vLLM benchmark_serving.py --save-result
output kept verbatim (source in samples/README.md): nine JSON lines, one per deployment and
request rate. The figures below were read off the source by hand."""

from __future__ import annotations

import json

from conftest import REPO, report_json

from diagnose.artifacts import serving_bench

BENCH = REPO / "samples/bench/llmd-llama-3.2-3b-l40s-tp1-dp4.json"
CONFIG = REPO / "samples/bench/llama-3.2-3b-config.json"


def test_each_run_is_read_with_its_own_line():
    text = BENCH.read_text(encoding="utf-8")
    assert serving_bench.detect(text) >= 0.9
    records = serving_bench.parse(text, BENCH.name)
    output = [r for r in records if getattr(r, "metric", None) == "output_tok_s"]
    assert [r.source for r in output] == [f"{BENCH.name}:{n}" for n in range(1, 10)]
    assert [round(r.value, 2) for r in output] == [2258.21, 5841.36, 8321.23, 2282.27, 5889.41, 10145.34,
                                                   2262.19, 5806.21, 11011.35]
    p99_itl = [r.value for r in records if getattr(r, "metric", None) == "itl_ms" and r.stat == "p99"]
    assert round(p99_itl[2], 2) == 134.97  # no-features at request rate inf
    models = {r.model for r in records if type(r).__name__ == "Workload"}
    assert models == {"meta-llama/Llama-3.2-3B-Instruct"}


def test_the_sample_is_the_saved_result_unedited():
    """Every line is one result object as vLLM writes it (keys in its order, the 'request_goodput:' typo kept)."""
    lines = BENCH.read_text(encoding="utf-8").splitlines()
    docs = [json.loads(line) for line in lines]
    assert len(docs) == 9 and all(list(d)[:3] == ["date", "backend", "model_id"] for d in docs)
    assert all("request_goodput:" in d and d["gpu"] == "4xNVIDIA_L40S" and d["decode_replicas"] == "4" for d in docs)
    assert [d["deployment"] for d in docs] == ["no-features"] * 3 + ["base"] * 3 + ["kvcache"] * 3


def test_scaling_reads_the_layout_from_the_file_name():
    report = report_json("scaling", BENCH, "--model", CONFIG, "--gpu", "l40s", "--prompt", "1000")
    rows = report["predictions"]["scaling"]["rows"]
    assert {r["label"] for r in rows} == {"TP1 DP4"} and {r["gpus"] for r in rows} == {4}
    # a 3.2B-parameter bf16 model streams ~6.4 GB per step: L40S's 864 GB/s gives a roofline near 7.5 ms
    assert 7.0 < rows[0]["roofline_ms"] < 8.5
