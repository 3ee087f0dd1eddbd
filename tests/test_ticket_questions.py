"""'Is this normal?' questions: asked, complained of, and answered when nothing is broken.

The sentences are written the way people ask such questions, several wordings each; none is
copied from a corpus case. The real cases used are development cases (tests never open the
holdout or fresh parts).
"""

import shutil
from pathlib import Path

import pytest
import tomllib
from conftest import shared_path

from diagnose.artifacts import issue_md, ticket_toml
from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note, Workload
from rules import claims
from rules.engine import evaluate, ticket_verdict

CORPUS = Path(__file__).parent / "data" / "tickets"
SPLIT = tomllib.loads((CORPUS / "SPLIT.toml").read_text())
SCORED_ONLY = set(SPLIT["holdout"]) | set(SPLIT.get("fresh", []))


def development_case(tmp_path, prefix: str) -> Facts:
    """The facts of a development case's bundle, read without its answer."""
    (src,) = [p for p in CORPUS.iterdir() if p.name.startswith(prefix + "-")]
    assert src.name not in SCORED_ONLY
    dst = tmp_path / "t"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("expected.toml"))
    return read_bundle([dst])


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def answer(text: str, *records):
    facts = said(text)
    facts.add(*records)
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


@pytest.mark.parametrize("text", [
    "Is it expected that the second card stays idle most of the time?",
    "I wonder why nvidia-smi shows only 3 GB used on each card.",
    "May I ask whether the tree algorithm is supposed to beat ring on two nodes",
    "Why the GPU memory usage is identical on all four cards",
    "I'd like to understand where the extra CPU threads come from.",
    "为什么第二张卡的显存占用更高",
    "We use a single thread, so the process should be at most one core busy, yet it shows three.",
    "I thought the second card would double the speed.",
])
def test_questions_are_read_as_questions(text):
    assert claims.asks(said(text))


@pytest.mark.parametrize("text", [
    "We run the 13B model on two A100s with tensor parallelism.",
    "Attached are the logs of the nightly benchmark.",
])
def test_reports_are_not_questions(text):
    assert not claims.asks(said(text))


@pytest.mark.parametrize("text", [
    "The all-reduce only reaches about 40 GB/s on this box.",
    "Adding the second GPU gives no real speedup.",
    "Generation is much slower than on the cloud instance.",
    "We see no performance gain over the old release.",
    "The link cannot reach the advertised bandwidth.",
    "nvidia-smi shows we can only utilize 50% of the GPU.",
])
def test_complaints_are_found(text):
    assert claims.complaint(said(text))


@pytest.mark.parametrize("text", [
    "It is not slow, I am just curious how the memory is split.",
    "Why does each process show two extra threads?",
    "GPU utilisation is 60%, is that right?",
])
def test_questions_without_a_shortfall_are_no_complaint(text):
    assert not claims.complaint(said(text))


@pytest.mark.parametrize("text", [
    "It takes a long time to run the first few predictions, then each one takes 15 ms.",
    "The first image needs 20 seconds, every later image under one second.",
    "Our first two queries are slow; the rest come back instantly.",
    "The initial batch took 400 ms while the others take 12 ms.",
])
def test_the_first_units_of_work_being_slow_is_warm_up(text):
    assert claims.find(said(text), "first_calls_slow")


def test_time_to_first_token_is_not_warm_up():
    assert not claims.find(said("Time to first token is 2 s for long prompts."), "first_calls_slow")


@pytest.mark.parametrize("text,over_time", [
    ("The throughput gradually decreases as the number of GPUs grows.", False),
    ("Bandwidth steadily drops with more nodes in the ring.", False),
    ("Throughput gradually decreases over a long run.", True),
    ("Tokens per second steadily decline during the night.", True),
])
def test_a_trend_against_another_variable_is_not_a_slowdown_over_time(text, over_time):
    assert bool(claims.find(said(text), "slowdown_over_time")) == over_time


@pytest.mark.parametrize("text,category", [
    ("Why is nvidia-smi showing 60% utilization during inference on our T4? It seems high.", "healthy"),
    ("I wonder why the ring algorithm loses bandwidth at medium sizes when more nodes join.", "expected_physics"),
    ("Is it normal that the tree algorithm is faster than ring on two nodes?", "healthy"),
])
def test_a_question_with_nothing_broken_in_sight_is_answered_weakly(text, category):
    v, findings = answer(text)
    # absence of evidence: never a confident answer; its confidence is the share right of such prior answers on the
    # development tickets, below the confident line (rules/catalog/verdict_confidence.toml [prior], issue 11)
    assert v.category == category and v.confidence < 0.7
    assert any(f.rule == "ticket.nothing_broken" for f in findings)


@pytest.mark.parametrize("text", [
    "Is it normal that all_reduce_perf hangs after the first size?",                  # a failure
    "Why is NCCL using the socket transport between our two nodes? NET/Socket shows up.",  # a fault's own words
    "Is it normal that training runs slower inside our KVM guest?",                   # a platform known for trouble
    "We set NCCL_P2P_DISABLE=1. Is the lower speed expected?",                        # a transport switched off
    "Is this bandwidth value normal?",                                                # about a value not given
    "Our 8 GPU nccl-tests gives busbw 80 GB/s. Is that expected?",                    # a figure for the checks
    "I met a problem when running with TP=16, can I set the tp size above 8?",       # a problem reported
])
def test_no_nothing_broken_answer_when_something_is_in_sight(text):
    _, findings = answer(text)
    assert not any(f.rule == "ticket.nothing_broken" for f in findings)


def test_a_fault_finding_outweighs_the_weak_answer():
    from rules.common import make
    from rules.engine import quiet_priors, verdict

    facts = said("I wonder why the ring algorithm loses bandwidth at medium sizes when more nodes join.")
    findings = evaluate(facts)
    fault = make("nccl.socket_fallback", "socket_fallback", "warning", 0.6, "NCCL uses sockets", "", [])
    weighed = quiet_priors(findings + [fault])
    assert not any(f.rule == "ticket.nothing_broken" for f in weighed)  # the prior goes when a fault shows
    assert verdict(weighed, symptom=claims.symptom(facts)).category == "socket_fallback"


@pytest.mark.parametrize("prefix,fault", [
    ("076", "workload.cross_node_tp"),  # TP across nodes: critical
    ("080", "host.numa_affinity"),      # GPUs driven from the wrong NUMA node: warning
])
def test_a_real_fault_silences_both_forms_of_the_weak_answer(prefix, fault):
    (src,) = [p for p in shared_path("tickets").iterdir() if p.name.startswith(prefix + "-")]
    facts = read_bundle([src])
    findings = evaluate(facts)
    assert any(f.rule == fault and f.severity in ("warning", "critical") for f in findings)
    assert not any(f.rule == "ticket.nothing_broken" for f in findings)  # neither healthy nor expected_physics


def test_a_fault_finding_silences_the_healthy_form_too():
    from rules.common import make
    from rules.engine import quiet_priors

    findings = evaluate(said("Is it normal that the tree algorithm is faster than ring on two nodes?"))
    assert any(f.rule == "ticket.nothing_broken" and f.category == "healthy" for f in findings)
    fault = make("host.numa_affinity", "numa_affinity", "warning", 0.6, "Wrong NUMA node", "", [])
    assert not any(f.rule == "ticket.nothing_broken" for f in quiet_priors(findings + [fault]))


@pytest.mark.parametrize("text,fires", [
    ("Our PyTorch job shows 400% CPU per process although we use no threads; it creates several NCCL communicators.",
     True),
    ("The DDP process sits at 250 % CPU during all-reduce.", True),
    ("The DDP process sits at 250 % CPU and training is much slower than before.", False),  # a complaint: host suspect
    ("The tokenizer process uses 300% CPU.", False),                                        # no NCCL in sight
    ("Each rank shows 400% CPU. We create several NCCL communicators per process.", True),  # the next sentence
    ("The tokenizer process uses 300% CPU. The model loads quickly. Training fine.\n\n"
     "We train with DDP over 8 GPUs.", False),                           # NCCL context paragraphs away
    ("Our preprocessing job takes 250 % CPU, which is fine.\n\nSeparately, DDP training works.", False),
])
def test_several_cores_busy_beside_nccl_is_its_polling_threads(text, fires):
    v, findings = answer(text)
    assert any(f.rule == "ticket.nccl_threads_cpu" for f in findings) == fires
    if fires:
        assert v.category == "expected_physics" and v.confidence < 0.7


def test_the_cpu_figure_over_one_core_is_read_not_the_first_one():
    _, findings = answer("The main thread is at CPU 100% and each DDP worker at 350 % CPU while NCCL all-reduces run.")
    (lead,) = [f for f in findings if f.rule == "ticket.nccl_threads_cpu"]
    assert lead.evidence[0].measured == 350


def test_a_busy_cpu_alone_is_not_host_bound():
    _, findings = answer("The serving process shows CPU at 100% on one core.", Workload("issue.md:1", gpu="A100"))
    assert not [f for f in findings if f.category == "host_bound"]
    _, findings = answer("The serving process shows CPU at 100% on one core and decode is slow.",
                         Workload("issue.md:1", gpu="A100"))
    assert [f for f in findings if f.category == "host_bound"]


def test_a_utilisation_figure_nobody_calls_low_is_no_host_wait():
    _, findings = answer("GPU usage is 60% on the T4, why so high?")
    assert not [f for f in findings if f.category == "host_bound"]
    _, findings = answer("GPU usage is only 60% on the T4 and inference is slow.")
    assert [f for f in findings if f.category == "host_bound"]


def test_a_hoped_for_rate_is_not_a_measurement():
    text = ("# Splitting a model over two cards\n\nI plan to buy two cards for a 30B model.\n"
            "I hope to get like 5-6 t/s.\n")
    assert not [r for r in issue_md.parse(text, "issue.md") if type(r).__name__ == "Measurement"]
    text = "# Splitting a model over two cards\n\nWith two cards I get 5 t/s on the 30B model.\n"
    assert [r for r in issue_md.parse(text, "issue.md") if type(r).__name__ == "Measurement"]


def test_a_ticket_toml_opening_with_a_comment_is_no_issue():
    text = '# what the reporter said\ndescription = """\nWhy is the CPU at 400%?\n"""\n\n[hardware]\ngpu = "A100"\n'
    assert ticket_toml.detect(text) >= 0.95 and issue_md.detect(text) == 0.0


def test_an_issue_form_of_fields_under_a_title_is_an_issue():
    text = "# High GPU usage in inference\n\nbranch: 19.10\nInference time: 250ms\nGPU:  Tesla T4\nconcurrency: 1\n"
    assert issue_md.detect(text) > 0
    # a tool's output under a command-line heading is not
    text = "# lspci -vvv -s 01:00.0\n\tLnkCap:\tPort #0, Speed 16GT/s, Width x16\n\tLnkSta:\tSpeed 2.5GT/s, Width x8\n"
    assert issue_md.detect(text) == 0.0


@pytest.mark.parametrize("prefix,category", [
    ("u302", "healthy"),           # T4 at 60 % utilisation, "why so high"
    ("u306", "healthy"),           # CPU busy decoding poses on the host
    ("u308", "expected_physics"),  # ring bandwidth at mid sizes falls as nodes join
    ("u310", "expected_physics"),  # several cores busy beside NCCL communicators
    ("u312", "healthy"),           # first images slow, then steady: warm-up
])
def test_development_questions_get_the_answer_their_thread_gave(tmp_path, prefix, category):
    facts = development_case(tmp_path, prefix)
    v = ticket_verdict(facts, evaluate(facts))
    assert v.category == category and v.confidence < 0.7


def test_a_verdict_on_the_reporters_prose_alone_is_never_confident():
    from diagnose.findings import Evidence
    from rules import catalog
    from rules.common import make

    facts = said("We run the job inside a virtual machine and the all-reduce is slow.")
    words = make("topology.virtualization_no_p2p", "virtualization_no_p2p", "warning", 0.75, "In a VM", "",
                 [Evidence("issue.md:1", 'the reporter: "inside a virtual machine"')])
    line, _ = catalog.verdict_levels()
    assert ticket_verdict(facts, [words]).confidence == line < 0.7  # verdict_confidence.toml: below the confident line
    # the same finding backed by a parsed artifact keeps its confidence
    parsed = make("topology.virtualization_no_p2p", "virtualization_no_p2p", "warning", 0.75, "In a VM", "",
                  [Evidence("issue.md:1", "the reporter"),
                   Evidence("nvidia-smi-q.txt:12", "Virtualization Mode: Pass-Through")])
    assert ticket_verdict(facts, [parsed]).confidence == 0.75


@pytest.mark.parametrize("text,fires", [
    ("nvidia-smi shows 100% GPU-Util the whole time, yet generation is slow. Why?", True),
    ("The card sits at 98 % utilization but the decode speed is much lower than I hoped.", True),
    ("GPU-Util is 100% and the job hangs after the first epoch.", False),                 # a failure in sight
    ("GPU util stays at 100% while rank 1 waits for the allreduce from rank 0. Normal?", False),  # NCCL spin: explained
])
def test_full_utilisation_with_a_slow_job_is_not_saturation(text, fires):
    _, findings = answer(text)
    assert any(f.rule == "ticket.busy_not_saturated" for f in findings) == fires


@pytest.mark.parametrize("text,percent,below,negated", [
    ("GPU utilization never reaches 100% and generation is slow.", 100, True, True),
    ("The GPU-Util won't go above 95 % while decoding.", 95, True, True),
    ("GPU usage does not hit 100% during inference.", 100, True, True),
    ("Combined, the cards' utilisation will not reach 100 %.", 100, True, True),
    ("My GPU-Util is constantly below 50%.", 50, True, False),          # a bound: a low share, affirmed
    ("GPU utilization stays under 30 % the whole run.", 30, True, False),
    ("nvidia-smi shows 100% GPU-Util the whole time.", 100, False, False),  # a reading
    ("It doesn't crash; utilization sits at 97%.", 97, False, False),       # the negation is another clause's
    ("GPU utilization is not low, it stays at 99 % the whole time.", 99, False, False),  # "low" is negated
])
def test_a_utilisation_bound_or_negation_is_not_a_reading(text, percent, below, negated):
    (u,) = [c for c in claims.claims(said(text)) if c.kind == "gpu_util"]
    assert (u.data["percent"], u.data["below"], u.negated) == (percent, below, negated)


@pytest.mark.parametrize("text", [
    "GPU utilization never reaches 100% and generation is slow. Why?",
    "Decoding is slow, although the GPU-Util won't go above 95 %.",
    "Offline the GPU sits at 100% utilization, but through the API server GPU usage is only 45%; it is slow.",
    "The first card shows 100% GPU utilization, the second stays under 60% utilization, and the job is slow.",
])
def test_no_busy_not_saturated_beside_a_lower_or_negated_figure(text):
    _, findings = answer(text)
    assert not any(f.rule == "ticket.busy_not_saturated" for f in findings)
    assert any(f.rule == "ticket.gpu_utilisation" for f in findings)  # the lower share is the lead


@pytest.mark.parametrize("prefix,category", [
    ("h001", "host_bound"),  # 90~100 % offline vs 50 % through the API server
    ("s018", "healthy"),     # Ollama's layer split "will not reach 100%" combined
])
def test_development_utilisation_tickets_get_one_lead(tmp_path, prefix, category):
    facts = development_case(tmp_path, prefix)
    findings = evaluate(facts)
    assert not any(f.rule == "ticket.busy_not_saturated" for f in findings)
    assert ticket_verdict(facts, findings).category == category


def test_a_complaint_asked_as_a_question_whose_figure_matches_is_physics_not_healthy():
    from diagnose.evidence import Measurement

    figure = Measurement("ticket.toml:9", "busbw_gbs", 232.0, "GB/s", stat="reported")
    hw = Workload("ticket.toml:5", gpu="A100 SXM", gpu_count=8, nodes=1)
    v, _ = answer("We only get 232 GB/s busbw with nccl-tests on one 8x A100 node, is that normal?", figure, hw)
    assert v.category == "expected_physics"
    v, _ = answer("What busbw does nccl-tests give on one 8x A100 node, is 232 GB/s normal?", figure, hw)
    assert v.category == "healthy"  # asked, not complained of: the measured figure is simply normal
