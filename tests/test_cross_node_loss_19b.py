"""Issue 11, batch u19b: tensor parallelism over the network measured slower than fewer GPUs.

A board that comes one to a machine (DGX Spark's GB10, rules/catalog/gpus.toml gpus_per_machine) puts every multi-GPU
layout on the network, and workload.cross_node_tp calls TP there a lead to measure; the reporter's measured loss is
that measurement, so the layout is the cause. ticket.loss_beyond_physics prices one machine's worst fabric (PCIe x8
without P2P), never the network, so it leaves a layout spanning nodes alone.

The development case is the thread the gap was met in (al-engr.com's two-Spark SGLang write-up). No other public
thread measuring two-Spark TP against one Spark was found, so the loss is checked on a written sentence of the same
shape; the negations are real text from other threads (a two-Spark gain, a loss inside one workstation).
"""

from test_ticket_questions import development_case

from diagnose.bundle import read_bundle
from rules import claims, loss_bound
from rules.engine import evaluate, ticket_verdict
from rules.workload import spans_nodes


def _bundle(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text)
    return read_bundle([tmp_path])


def _rules(findings, rule):
    return [f for f in findings if f.rule == rule]


# --------------------------------------------------------------------------- 1. TP over the network, measured slower

SPARKS = ("# Two DGX Sparks with vLLM\n\nWe stacked two DGX Spark boxes over the ConnectX-7 200 Gb/s link and serve "
          "Llama-3.1-8B-Instruct (bf16) with vLLM: `vllm serve meta-llama/Llama-3.1-8B-Instruct "
          "--tensor-parallel-size 2` across the 2 nodes (Ray).{loss}\n")


def test_a_loss_measured_across_sparks_is_the_cross_node_layout(tmp_path):
    facts = _bundle(tmp_path, SPARKS.format(loss=" Single-stream decode is 3x slower than on one Spark alone "
                                                 "(11 tok/s against 33 tok/s)."))
    assert spans_nodes(facts, 2)
    findings = evaluate(facts)
    (f,) = [f for f in _rules(findings, "workload.cross_node_tp") if f.severity != "ok"]
    assert f.category == "cross_node_tp" and f.severity == "warning" and "slower than 1 GPU" in f.title
    assert not _rules(findings, "ticket.loss_beyond_physics")  # the bound prices one machine, not the network
    assert ticket_verdict(facts, findings).category == "cross_node_tp"


def test_sparks_without_a_measured_loss_keep_the_lead(tmp_path):
    facts = _bundle(tmp_path, SPARKS.format(loss=" Is TP the right layout here?"))
    (f,) = _rules(evaluate(facts), "workload.cross_node_tp")
    assert f.severity == "info" and f.confidence < 0.5


def test_sparks_faster_together_is_no_loss(tmp_path):
    # the shape of the development case u17b10 (a two-Spark gain): TP=2 over the network three times one Spark
    facts = _bundle(tmp_path, SPARKS.format(loss=" One Spark alone runs this model at 12-15 tok/s; two Sparks "
                                                 "together deliver 3x the speed."))
    (f,) = _rules(evaluate(facts), "workload.cross_node_tp")
    assert f.severity == "info" and f.confidence < 0.5


def test_a_loss_inside_one_machine_is_still_bounded(tmp_path):
    # BlackSamorez/tensor_parallel#117 (jph00, 2023-08-26): two GPUs in one workstation, no network
    text = ("# 2x slowdown using TP\n\nI just tried running your kaggle nb locally, using 2 x A6000s. I used the "
            "'meta-llama/Llama-2-7b-hf' model. The call to `model.generate` with `max_length=200` takes 12 seconds "
            "when using `tensor_parallel` with the 2 GPUs.\n\nHowever, if I remove `tensor_parallel` and instead just "
            "use a single GPU, generation is over twice as fast, taking 5 seconds.\n\nIs this slowdown expected, or "
            "am I doing something wrong?\n")
    facts = _bundle(tmp_path, text)
    assert not spans_nodes(facts, 2)
    assert not [f for f in _rules(evaluate(facts), "workload.cross_node_tp") if f.severity != "ok"]


def test_the_bound_abstains_for_a_layout_over_the_network(tmp_path):
    facts = _bundle(tmp_path, SPARKS.format(loss=" It is 3x slower than one Spark."))
    evaluate(facts)  # (sets the subject the bound prices)
    assert claims.stated_losses(facts) and loss_bound.weighed_loss(facts) is None


def test_the_development_case_sparks(tmp_path):
    facts = development_case(tmp_path, "u19b01")
    assert ticket_verdict(facts, evaluate(facts)).category == "cross_node_tp"
