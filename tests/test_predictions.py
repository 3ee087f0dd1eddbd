"""The typed predictions (rules/predictions.py): a rule runs only where the command made the type it
needs, and each type serialises to the report JSON the command shows."""

from conftest import REPO, report_json

from diagnose.evidence import Facts
from rules import catalog, roofline
from rules.engine import evaluate, load_rules
from rules.predictions import PredictResult, PredictRow

JUDGED_ONLY = {"base", "layout_ratio", "base_ratio", "speedup", "ideal_speedup", "speedup_base"}


def _predict_result(tps=(1, 2, 4, 8), batch=1) -> PredictResult:
    model, gpu = catalog.model("llama-3-70b"), catalog.gpu("h100-sxm")
    rows = [PredictRow.of(roofline.predict(model, gpu, roofline.Layout(tp), batch=batch), batch) for tp in tps]
    return PredictResult(rows, model, gpu, catalog.engine(None))


def test_a_rule_runs_only_where_its_prediction_type_was_made():
    result = _predict_result()
    typed = {rid: r.needs for rid, r in load_rules().items() if r.needs}
    assert {t.__name__ for t in typed.values()} == {"PredictResult", "Plan", "ScalingAnalysis", "FleetSpread"}
    found = evaluate(Facts(), result)
    assert {f.rule for f in found if f.rule in typed} and all(typed[f.rule] is PredictResult
                                                              for f in found if f.rule in typed)
    # without the prediction none of them runs, even when asked for by prefix
    assert evaluate(Facts(), None, only=["predict.", "plan.", "scaling.", "fleet."]) == []


def test_predict_rows_are_roofline_predictions_with_their_totals():
    """3 sequences over 2 replicas decode at 3 x the fullest replica's per-sequence rate (2 sequences)."""
    model, gpu = catalog.model("llama-3-70b"), catalog.gpu("h100-sxm")
    p = roofline.predict(model, gpu, roofline.Layout(4, 1, 2), batch=2)
    row = PredictRow.of(p, 3)
    assert row.decode_tok_s_total_expected == round(3 * p.decode_tok_s_expected, 2)
    assert row.label == "TP4 DP2" and row.usable == (p.valid and p.fits)
    as_json = row.to_dict()
    assert list(as_json)[:-1] == list(p.to_dict()) and list(as_json)[-1] == "total_batch"
    assert PredictResult([row], model, gpu, catalog.engine(None)).report_json()["assumptions"] == p.assumptions


def _rows(*args) -> list[dict]:
    return report_json("scaling", *args, "--fail-on", "never")["predictions"]["scaling"]["rows"]


def test_scaling_rows_keep_only_the_keys_of_their_kind(tmp_path):
    """A row with a measured step says how much of it the model explains; a row judged on another
    figure (the FasterTransformer guide's latencies, cited in the file) does not; a row with no figure
    the predictor can judge (a TTFT alone) has neither the figure's keys nor the judgement's."""
    step = _rows(str(REPO / "samples" / "scaling" / "runs.csv"), "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm")
    assert step and all(r["step_ms"] is not None and "explained_share" in r and JUDGED_ONLY <= set(r) for r in step)
    published = _rows(str(REPO / "tests" / "data" / "published" / "ft-gpt_guide-gpt20b-a100-tp1-8.csv"),
                      "--catalog", str(REPO / "tests" / "data" / "published" / "models.toml"))
    assert published and all(r["step_ms"] is None and "explained_share" not in r and r["metric"] for r in published)
    csv = tmp_path / "runs.csv"
    csv.write_text("layout,batch,metric,value\nTP1,1,ttft_ms,90\nTP2,1,ttft_ms,60\n")
    unjudged = _rows(str(csv), "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm")
    assert len(unjudged) == 2
    for r in unjudged:
        assert r["metric"] is None and r["ratio"] is None and r["status"] == "no figure"
        assert not set(r) & (JUDGED_ONLY | {"explained_share", "measured_how", "roofline", "expected", "time_metric"})


CAPTURE_EXPECTED = ["step_ms", "step_ms_roofline", "band", "engine", "allreduce_per_step", "allreduce_ms_per_step",
                    "allreduce_bytes", "fabric", "pp_bubble_fraction", "source", "hbm_gbs", "peak_tflops",
                    "bytes_per_gpu_step", "flops_per_gpu_step"]


def test_a_captures_expectation_shows_only_the_figures_that_apply():
    """predictions.expected (schema diagnose.report/1): one all-reduce's time only with TP > 1, and the
    same call over PCIe only where the GPU's PCIe is another interconnect than its fabric."""
    from diagnose.capture_report import predict

    tp8 = predict(Facts(), "llama-3-70b", 8, 1, 8, "h100-sxm")
    shown = tp8.report_json()["expected"]
    assert list(shown) == CAPTURE_EXPECTED + ["allreduce_us", "allreduce_us_nccl", "allreduce_us_pcie", "pcie_fabric"]
    assert shown["fabric"] == tp8.roofline.interconnect != shown["pcie_fabric"]
    assert shown["allreduce_us_pcie"] > shown["allreduce_us_nccl"] > 0 and shown["allreduce_us"] > 0
    assert shown["band"] == [tp8.roofline.band_low, tp8.roofline.band_high]
    assert list(predict(Facts(), "llama-3-8b", 1, 1, 1, "h100-sxm").report_json()["expected"]) == CAPTURE_EXPECTED
