"""The engines' own KV cache, queue and eviction lines (diagnose/artifacts/engine_log.py) and the rule that reads
an eviction as the cause (rules/engine_pressure.py). Every log line is from a public thread, as posted
(tests/data/engine_lines/SOURCES.md names each file's URL)."""

from pathlib import Path

import pytest
from test_ticket_figures import _issue
from test_ticket_numbers import _rule

from diagnose.artifacts import engine_log
from diagnose.evidence import EngineLoad
from rules import claims

DATA = Path(__file__).parent / "data" / "engine_lines"
AGG = Path(__file__).parent / "data" / "agg_lines"


def _read(path: Path) -> list[EngineLoad]:
    text = path.read_text()
    assert engine_log.detect(text) >= 0.5
    return engine_log.parse(text, path.name)


@pytest.mark.parametrize("name, engine, kv, queued, running, preemptions, retractions", [
    ("limo29_preempt.log", "vllm", None, None, None, 101, 0),  # the counter, not the one warning line
    ("sgl4184_retract.log", "sglang", None, None, None, 0, 2),  # 11 lines over TP ranks, 2 time stamps
    ("sgl2746_retract.log", "sglang", 100.0, 0, 2, 0, 1),
    ("sgl14972_decode.log", "sglang", 94.0, 5, 6, 0, 0),  # comma form ("Decode batch,")
    ("sgl26248_swa.log", "sglang", 100.0, 3, 4, 0, 0),  # the full pool's usage, not the sliding window's 0.06
    ("vllm2731_pending.log", "vllm", 99.0, 115, 35, 0, 0),  # vLLM 0.3 llm_engine.py line
    ("vllm21809_v1.log", "vllm", 95.0, 0, 8, 0, 0),  # V1 "Waiting:"
    ("tt55_v0.log", "vllm", 92.7, 0, 16, 0, 0),  # V0 metrics.py "Pending:"
])
def test_each_engines_lines_are_counted_as_printed(name, engine, kv, queued, running, preemptions, retractions):
    (r,) = _read(DATA / name)
    assert (r.engine, r.kv_usage_max_pct, r.queued_max, r.running_max) == (engine, kv, queued, running)
    assert (r.preemptions, r.retractions) == (preemptions, retractions)
    assert r.source.startswith(f"{name}:") and r.quote


def test_an_earlier_threads_v1_lines_are_read_too():
    (r,) = _read(AGG / "vllm43295.log")  # https://github.com/vllm-project/vllm/issues/43295
    assert r.kv_usage_max_pct == 98.4 and r.queued_max == 43 and r.preemptions == 0


def test_names_of_settings_counters_and_errors_are_no_engine_report():
    text = (DATA / "nomatch.log").read_text()
    assert engine_log.detect(text) == 0.0 and engine_log.parse(text, "nomatch.log") == []


# ---------------------------------------------------------------------------- the verdict, on the threads as posted

LIMO29 = """# eval code

 Sequence group 221 is preempted by PreemptionMode.RECOMPUTE mode because there is not enough KV cache space. \
This can affect the end-to-end performance. Increase gpu_memory_utilization or tensor_parallel_size to provide more \
KV cache memory. total_num_cumulative_preemption=101

how to solve this problem?
thanks so much
"""


def test_a_vllm_preemption_warning_pasted_in_prose_is_the_cause():
    """GAIR-NLP/LIMO#29: the maintainer's answer was gpu_memory_utilization or a larger tensor_parallel_size."""
    _, findings, v = _issue(LIMO29)
    (f,) = _rule(findings, "ticket.kv_preemption")
    assert f.category == v.category == "other"
    assert f.evidence[0].measured == 101 and "gpu_memory_utilization" in f.fix and "max_num_seqs" in f.fix


def test_frequent_sglang_retractions_are_the_cause():
    """sgl-project/sglang#4184 ("Decode out of memory happened when run deepseek-r1 inference"), its log as posted."""
    text = ("# Decode out of memory happened when run deepseek-r1 inference\n\n```\n"
            + (DATA / "sgl4184_retract.log").read_text() + "```\n")
    _, findings, v = _issue(text)
    (f,) = _rule(findings, "ticket.kv_preemption")
    assert v.category == "other" and f.evidence[0].measured == 2 and "--mem-fraction-static" in f.fix


@pytest.mark.parametrize("name", [
    "sgl2746_retract.log",  # one retraction event: "occasionally" is fine by SGLang's guide
    "sgl14972_decode.log", "sgl26248_swa.log",  # a full cache alone: the batch is as large as the cache allows
    "vllm2731_pending.log", "vllm21809_v1.log", "tt55_v0.log",
])
def test_a_full_cache_or_one_retraction_is_no_finding(name):
    text = "# Throughput is lower than expected\n\n```\n" + (DATA / name).read_text() + "```\n"
    _, findings, _ = _issue(text)
    assert not _rule(findings, "ticket.kv_preemption")


def test_a_hang_is_not_explained_by_preemptions():
    log = (DATA / "limo29_preempt.log").read_text()
    text = "# vLLM hangs after a few minutes, nothing is generated\n\n```\n" + log + "```\n"
    _, findings, _ = _issue(text)
    assert not _rule(findings, "ticket.kv_preemption")


def test_sglangs_prefill_lines_cuda_graph_false_is_no_eager_mode():
    """SGLang's prefill stats line prints "cuda graph: False" for every prefill batch (graphs are captured for
    decode): eugr/llama-benchy#15's lines (tests/data/slot_lines/SOURCES.md) are no --disable-cuda-graph."""
    log = (Path(__file__).parent / "data" / "slot_lines" / "llamabenchy15_sglang.log").read_text()
    facts, findings, v = _issue("# Prefill is slow\n\n```\n" + log + "```\n")
    assert not claims.find(facts, "eager_flag") and v.category != "eager_mode"


# Unscored pastes of earlier batches (tests/data/normal_questions/SOURCES.md, tests/data/ut13/SOURCES.md): a full
# cache with a long queue is read, and without an eviction it is no finding.
@pytest.mark.parametrize("path, kv, queued, running", [
    ("normal_questions/sgl938.md", 93.0, 12279, 1010),  # https://github.com/sgl-project/sglang/issues/938
    ("normal_questions/sgl5429.md", 92.0, 990, 92),  # https://github.com/sgl-project/sglang/issues/5429
    ("normal_questions/sgl3186.md", 2.0, 0, 28),  # https://github.com/sgl-project/sglang/issues/3186
    ("ut13/sglang10216.md", 1.0, 0, 1),  # https://github.com/sgl-project/sglang/issues/10216
])
def test_pasted_sglang_lines_in_earlier_threads(path, kv, queued, running):
    facts, findings, _ = _issue((Path(__file__).parent / "data" / path).read_text())
    (r,) = facts.of(EngineLoad)
    assert (r.kv_usage_max_pct, r.queued_max, r.running_max, r.preemptions, r.retractions) == (kv, queued, running,
                                                                                                 0, 0)
    assert not _rule(findings, "ticket.kv_preemption")


# vLLM's own docs print the warning as an example of what one preemption looks like
# (https://docs.vllm.ai/en/latest/configuration/optimization.html, Preemption, verbatim), and ask for action only
# "If you frequently encounter preemptions": a counter of 1 is one preemption, no pattern.
VLLM_DOCS_EXAMPLE = (
    "WARNING 05-09 00:49:33 scheduler.py:1057 Sequence group 0 is preempted by PreemptionMode.RECOMPUTE mode because "
    "there is not enough KV cache space. This can affect the end-to-end performance. Increase gpu_memory_utilization "
    "or tensor_parallel_size to provide more KV cache memory. total_cumulative_preemption_cnt=1")


def test_one_vllm_preemption_is_no_finding():
    (r,) = engine_log.parse(VLLM_DOCS_EXAMPLE, "docs.txt")
    assert r.preemptions == 1  # the parser counts what the line states
    text = ("# Throughput is lower than expected\n\nThe log shows this once:\n\n```text\n" + VLLM_DOCS_EXAMPLE
            + "\n```\n")
    _, findings, _ = _issue(text)
    assert not _rule(findings, "ticket.kv_preemption")


def test_one_retraction_under_time_only_stamps_is_one_event():
    """SGLang releases of late 2024 stamp a line with the time alone ("[16:43:29 TP0] Prefill batch. ...",
    https://github.com/sgl-project/sglang/issues/1612), and reporters trim stamps to it ("[03:51:54] Decode batch",
    https://github.com/sgl-project/sglang/issues/26248). sglang#2746's one retraction, its five TP ranks' copies as
    posted, in that stamp: still one event, not five."""
    lines = [ln for ln in (DATA / "sgl2746_retract.log").read_text().splitlines() if "out of memory" in ln]
    short = "\n".join(ln.replace("[2025-01-06 ", "[") for ln in lines)
    assert short.startswith("[02:58:44 TP0] Decode out of memory happened.")
    (r,) = engine_log.parse(short, "sgl.log")
    assert r.retractions == 1
    _, findings, _ = _issue("# Throughput is lower than expected\n\n```\n" + short + "\n```\n")
    assert not _rule(findings, "ticket.kv_preemption")


def test_vllm_v1_stats_lines_preemptions_are_counted():
    """vLLM V1's stats line gained "Preemptions: %d" after "Waiting: %d reqs" whenever the logging interval had any
    (vllm/v1/metrics/loggers.py LoggingStatLogger.log, 2025-26 releases: num_preemptions summed from
    IterationStats.num_preempted_reqs over the interval). No pasted thread with it was found; the lines are
    vllm#21809's (tests/data/engine_lines/vllm21809_v1.log) with the field as that release prints it: the counts of the
    intervals add up."""
    lines = (DATA / "vllm21809_v1.log").read_text().splitlines()
    later = [ln.replace("Waiting: 0 reqs, ", f"Waiting: 0 reqs, Preemptions: {n}, ") for ln, n in zip(lines, (3, 0, 1))]
    later = [ln.replace("Preemptions: 0, ", "") for ln in later]  # an interval without any prints no field
    (r,) = engine_log.parse("\n".join(later), "v1.log")
    assert (r.preemptions, r.kv_usage_max_pct) == (4, 94.7)
    _, findings, _ = _issue("# Throughput is lower than expected\n\n```\n" + "\n".join(later) + "\n```\n")
    (f,) = _rule(findings, "ticket.kv_preemption")
    assert f.evidence[0].measured == 4


# ---------------------------------------------------------------------------- how often SGLang retracts
# SGLang's guide (https://docs.sglang.ai/advanced_features/hyperparameter_tuning.html, sgl-project/sglang
# docs/advanced_features/hyperparameter_tuning.md): "If you see `KV cache pool is full. Retract requests.` occasionally
# but not frequently (~1 time per minute), it is okay." The rate over the span the stamps cover decides, not the count.
# The variants below are the threads' own lines with only their stamps moved, as said at each.

def _retractions(name: str) -> list[str]:
    return [ln for ln in (DATA / name).read_text().splitlines() if "out of memory" in ln or "Retract" in ln]


def _verdict_on(lines: list[str]):
    _, findings, _ = _issue("# Throughput is lower than expected\n\n```\n" + "\n".join(lines) + "\n```\n")
    return _rule(findings, "ticket.kv_preemption")


def test_two_retractions_twelve_seconds_apart_are_five_a_minute():
    """sglang#4184 as posted: events at 21:49:33 and 21:49:45, one interval of 12 s, 5 a minute."""
    (r,) = engine_log.parse("\n".join(_retractions("sgl4184_retract.log")), "sgl.log")
    assert (r.retractions, r.retraction_span_s) == (2, 12.0)
    (f,) = _verdict_on(_retractions("sgl4184_retract.log"))
    rate = [e for e in f.evidence if e.unit == "per minute"]
    assert rate and rate[0].measured == 5.0 and rate[0].expected == 1.0


def test_two_retractions_an_hour_apart_are_no_finding():
    """sglang#4184's two events with the second's stamps moved an hour on (21:49:45 -> 22:49:45): one retraction an
    hour is well under the guide's one a minute."""
    lines = [ln.replace("21:49:45", "22:49:45") for ln in _retractions("sgl4184_retract.log")]
    (r,) = engine_log.parse("\n".join(lines), "sgl.log")
    assert (r.retractions, r.retraction_span_s) == (2, 3612.0)
    assert not _verdict_on(lines)


def test_tp_copies_straddling_a_second_are_one_event():
    """sglang#2746's one retraction, printed by five TP ranks at 02:58:44, with the last two copies stamped a second
    later (02:58:45), as copies printed across a second boundary are: still one event, no finding."""
    lines = _retractions("sgl2746_retract.log")
    lines = lines[:3] + [ln.replace("02:58:44", "02:58:45") for ln in lines[3:]]
    assert any("02:58:45" in ln for ln in lines)
    (r,) = engine_log.parse("\n".join(lines), "sgl.log")
    assert r.retractions == 1
    assert not _verdict_on(lines)


def test_one_rank_printing_the_same_retraction_again_is_a_second_event():
    """A rank prints one line per retraction: sglang#2746's TP0 line again a second later is a second event, not a
    copy (the other ranks' copies are)."""
    lines = _retractions("sgl2746_retract.log")
    again = lines[0].replace("02:58:44", "02:58:45")
    (r,) = engine_log.parse("\n".join(lines + [again]), "sgl.log")
    assert (r.retractions, r.retraction_span_s) == (2, 1.0)


def test_retractions_without_stamps_give_no_rate():
    """With the stamps trimmed off the lines nothing says how often the engine retracted: no rate, no finding."""
    lines = [ln.split("] ", 1)[1] for ln in _retractions("sgl4184_retract.log")]
    (r,) = engine_log.parse("\n".join(lines), "sgl.log")
    assert r.retraction_span_s is None
    assert not _verdict_on(lines)
