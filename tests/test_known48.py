"""Session s48, pass known48: misreadings the last session's reviewers proved with probes and left unmended. Each
probe is labelled probe (with what main read before), beside near-misses that must keep the old reading."""

import pytest

from diagnose.artifacts import issue_md, launch
from diagnose.evidence import Workload
from rules import claims
from tests.conftest import REPO, judged_issue, report_json
from tests.test_fr47_a2 import _denied, _hangs  # the hang read in a text, and its denial for the writer

DATA = REPO / "tests" / "data"

# ------ 1. a place, layout or release after a comma restricts where the fine run holds: the denial is cancelled
# (fx48d: dc9747fb's _CONDITIONED, which read these as a note on the writer's setup, reverted; main's reading back)

@pytest.mark.parametrize("text", [
    "Someone said the all-reduce hangs with TP=4, but ours runs fine, on TP=2.",  # probe (wt4: a denial)
    "Someone said the all-reduce hangs with TP=4, but ours runs fine, on a single GPU.",  # probe (wt4: a denial)
    "Someone said it hangs, but mine worked fine, in v0.5.3.",  # probe (wt4: a denial)
    "Someone said it hangs, but ours runs fine, with NCCL_P2P_DISABLE=1.",  # probe (wt4: a denial)
    "Someone said it hangs, but ours runs fine, on my dev box.",  # probe (wt4: a denial)
    # the same words without the comma (never a denial)
    "Someone said the all-reduce hangs with TP=4, but ours runs fine on TP=2.",
    "Someone said it hangs, but ours runs fine with NCCL_P2P_DISABLE=1.",
    # a restriction after the comma or in the clause (as on main and wt4)
    "Someone said the all-reduce hangs on H100s, but ours runs fine, except when TP=8.",
    "Someone said it hangs, but ours runs fine, unless the batch is larger than 64.",
    "Someone said it hangs, but ours runs fine, as long as NCCL_P2P_DISABLE=1 is set.",
    "Someone said it hangs, but ours works fine for me on TP=2.",  # fr47a2's: another layout in the clause
])
def test_a_restriction_after_a_comma_or_in_the_clause_cancels_the_denial(text):
    assert not _denied(text)
    assert _hangs(text)


@pytest.mark.parametrize("said", [
    "Someone said the all-reduce hangs with TP=4, but ours runs fine, on TP=2.",  # probe (wt4: insufficient_data)
    "Someone said the all-reduce hangs with TP=4, but ours runs fine, on a single GPU.",  # probe (wt4: idem)
    "I read that vLLM hangs at the first all-reduce, but mine worked fine, in v0.5.3.",  # probe (wt4: idem)
])
def test_a_restricted_fine_run_leaves_the_hang_on_pcie(said):
    verdict, found = judged_issue("# vLLM TP=4 on 4x RTX 4090\n\nvllm serve meta-llama/Llama-3.1-8B-Instruct "
                                  "--tensor-parallel-size 4 on 4x RTX 4090. " + said + "\n")
    assert verdict.category == "p2p_disabled"
    assert found["ticket.hang_on_pcie"].category == "p2p_disabled"


# -------------------- 3. "it works fine for me too": the denial's own "too" (lost at af57da3a, fr47a2's _OVER_AFTER)

@pytest.mark.parametrize("text", [
    "Someone said it hangs, but it works fine for me too.",  # probe (before: a hang)
    "Someone said it hangs. It works fine for me too.",  # probe (before: a hang)
    # a thread's answer to another's infinite loop: "It works fine for me too... Which version of the compiler do you
    # use?" (find_string id 56905373546); to another's "does not work for me": "It works fine for me too...." (id
    # 56737160302); the frame around it is a probe
    "Others reported the server hangs. It works fine for me too... Which version of vLLM do you use?",
    "Someone said it hangs, but mine works fine too.",  # probe
    "Someone said it hangs, but ours runs fine as well.",  # probe
])
def test_a_denial_with_its_own_too_is_still_a_denial(text):
    assert _denied(text)
    assert not _hangs(text)


@pytest.mark.parametrize("text", [
    # "Actually, it works fine for me too, _if_ I use DOS 5 as the boot image, but I changed to DOS 6.22, and its has
    # oops'd every time" (id 28473317549): fine only under a condition, then the writer's own failure
    "Someone said it hangs. Actually, it works fine for me too, if I use TP=2, but with TP=4 it hangs every time.",
    "Someone said it hangs, but ours ran fine, and now ours does that too.",  # probe: the writer's system does the same
    "Someone said it hangs, but it works fine for us, and we see it too.",  # probe: the writer sees it as well
    "Someone said it hangs. Ours ran fine for two days. Now it does too.",  # fr47a2's: over in the next sentence
])
def test_a_too_that_says_the_writer_has_it_cancels_the_denial(text):
    assert not _denied(text)
    assert _hangs(text)


# ------------ 2. a fine run said to be over ("at first", "initially", "for a while") cancels the denial, "too" or not

@pytest.mark.parametrize("text", [
    "Someone said it hangs, but ours was fine too, at first.",  # probe (wt4: a denial)
    "Someone said it hangs, but ours was fine, at first.",  # probe (main and wt4: a denial)
    "Someone said it hangs, but mine worked fine initially.",  # probe (main and wt4: a denial)
    "Someone said it hangs, but ours ran fine in the beginning.",  # probe
    "Someone said it hangs, but ours ran fine for a while.",  # probe (main and wt4: a denial)
    "Someone said it hangs, but ours worked fine until recently.",  # probe ('until' as on main)
])
def test_a_fine_run_said_to_be_over_cancels_the_denial(text):
    assert not _denied(text)
    assert _hangs(text)


@pytest.mark.parametrize("text", [
    # near-misses: no past state of the run
    "Someone said it hangs, but ours runs fine, at first glance.",
    "Someone said it hangs, but ours runs fine. At first I thought it was the driver.",  # another sentence
    "Someone said it hangs, but mine works fine too.",
])
def test_a_first_glance_or_a_later_first_keeps_the_denial(text):
    assert _denied(text)
    assert not _hangs(text)


def test_a_fine_run_over_at_first_leaves_the_hang_on_pcie():
    # probe (wt4: insufficient_data)
    verdict, found = judged_issue("# vLLM TP=4 on 4x RTX 4090\n\nvllm serve meta-llama/Llama-3.1-8B-Instruct "
                                  "--tensor-parallel-size 4 on 4x RTX 4090. Someone said the all-reduce hangs with "
                                  "TP=4, but ours was fine too, at first.\n")
    assert verdict.category == "p2p_disabled"
    assert found["ticket.hang_on_pcie"].category == "p2p_disabled"


# ----------------------------------------- 4. flags listed with commas in prose: each flag's value without the comma

def _launch(text: str) -> list[Workload]:
    return [f for f in launch.parse(text, "issue.md") if isinstance(f, Workload) and f.framework]


@pytest.mark.parametrize("text, tp, eager", [
    # probe (the brief's; before: tp None)
    ("We run vllm serve meta-llama/Llama-3.1-70B (--tensor-parallel-size 4, --enforce-eager).", 4, True),
    # the group as written in a real note: "vLLM (--tensor-parallel-size 2, --enforce-eager, --dtype bfloat16)"
    # (find_string id 51775550683); the command around it is a probe
    ("I start vllm serve Qwen/Qwen2.5-32B (--tensor-parallel-size 2, --enforce-eager, --dtype bfloat16).", 2, True),
    # "--kv-cache-dtype fp8, --tensor-parallel-size 8, --gpu-memory-utilization 0.8" (id 60419268194), no parentheses
    ("I start vllm serve moonshotai/Kimi-K2 --kv-cache-dtype fp8, --tensor-parallel-size 8, "
     "--gpu-memory-utilization 0.8 and it is slow.", 8, False),
    ("We run vllm serve meta-llama/Llama-3.1-70B (--enforce-eager, --tensor-parallel-size=4).", 4, True),  # probe
])
def test_flags_listed_with_commas_are_read(text, tp, eager):
    w = _launch(text)[0]
    assert (w.tp, w.eager) == (tp, eager)


@pytest.mark.parametrize("text", [
    # near-misses: a group that says more than flags stays as written (known47b, fr47b2): no TP 4 from the command
    "I launch vllm serve meta-llama/Llama-3.1-70B (--tensor-parallel-size 4, which was faster).",
    "I launch vllm serve meta-llama/Llama-3.1-70B (--tensor-parallel-size 4, --enforce-eager removed).",
])
def test_a_group_saying_more_than_flags_is_still_not_read(text):
    assert _launch(text)[0].tp != 4


def test_a_list_inside_a_value_keeps_its_commas():
    # llama-cli's tensor split, "-ts 3,1" (common/arg.cpp): only a trailing comma is prose's
    assert launch._flags(["-ts", "3,1,", "--tp", "4,"])[0] == {"ts": "3,1", "tp": "4"}


@pytest.mark.parametrize("text", [
    # a list of values tried, no one value: TP None as on main (fx48d; wt4 read the first value)
    "I tried vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 1, 2 and 4 on 4x RTX 4090.",  # probe
    "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 2, 4 and 8 all hang.",  # probe (wt4: tp 2)
    "I tried vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 1, 2, 4, 8 and only 1 works.",  # probe
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2, 4 on 4x RTX 4090 both hang.",  # probe
    "python -m vllm.entrypoints.openai.api_server --model X --tensor-parallel-size 4, then 8.",  # probe
])
def test_a_list_of_values_is_no_one_value(text):
    assert _launch(text)[0].tp is None


@pytest.mark.parametrize("text, tp, pp", [
    ("vllm serve meta-llama/Llama-3.1-70B -tp 4, -pp 2", 4, 2),  # probe: short flags
    ("vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size=4, --pipeline-parallel-size=2", 4, 2),  # probe
    ("We run vllm serve meta-llama/Llama-3.1-70B (--enforce-eager, --tensor-parallel-size 4,)", 4, None),  # probe:
    # the group ends after the comma
])
def test_a_value_before_another_flag_or_the_groups_end_is_read(text, tp, pp):
    w = _launch(text)[0]
    assert (w.tp, w.pp) == (tp, pp)


def test_a_hang_at_each_of_a_list_of_sizes_is_still_the_hang_on_pcie():
    # probe (wt4: tp 1 read from "1, 2 and 4", and ticket.hang_on_pcie silent)
    verdict, found = judged_issue("# Hang with tensor parallel on 4x RTX 4090\n\nvLLM 0.6.3. I tried vllm serve "
                                  "meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 1, 2 and 4 on 4x RTX 4090; "
                                  "only TP 1 works, the others hang at the first all-reduce.\n")
    assert verdict.category == "p2p_disabled"
    assert found["ticket.hang_on_pcie"].category == "p2p_disabled"


# ------------------- 5. a decimal comma: the reporter's quotes as written wherever quoted, the values numbers in JSON

def test_a_tickets_quotes_keep_the_reporters_decimal_commas(tmp_path):
    # probe (before: the figure's own quote "22,9" in the source column, the same words quoted "22.9" in the detail
    # column of the same report)
    paste = tmp_path / "issue.md"
    paste.write_text("# TP 2 slower\n\nOn 2x RTX 3090 running vLLM with Llama-3.1-8B, generation got 40% slower (from "
                     "38,1 tok/s to 22,9 tok/s) with --tensor-parallel-size 2.\n")
    report = report_json("ticket", paste)
    quotes = [f"{e['detail']} {e['source']}" for f in report["findings"] for e in f["evidence"]
              if "tok/s to" in f"{e['detail']} {e['source']}"]
    assert len(quotes) >= 2 and all("38,1 tok/s to 22,9 tok/s" in q for q in quotes)
    # (the measured rate is the change's end, 22.9, since tests/test_relative_change.py; its own quote, where the
    # reading keeps one, is the reporter's spelling)
    figures = report["facts"]["measurement"]
    assert [m["value"] for m in figures] == [22.9]
    assert all(m["said"] is None or "22,9 tok/s" in m["said"] for m in figures)


@pytest.mark.parametrize("quoted, written", [
    ('the loss stated: "from 38.1 tok/s to 22.9 tok/s"', 'the loss stated: "from 38,1 tok/s to 22,9 tok/s"'),
    # near-misses: another unit, a version, a longer figure, a figure the rewrite did not read
    ("22.9 GB of weights", "22.9 GB of weights"),
    ("vLLM 0.22.9 tok/s build", "vLLM 0.22.9 tok/s build"),
    ("122.9 tok/s", "122.9 tok/s"),
    ("22.95 tok/s", "22.95 tok/s"),
    ("41.5 tok/s", "41.5 tok/s"),
])
def test_only_the_rewritten_figures_before_their_rate_unit_are_given_back(quoted, written):
    assert issue_md.given_back(quoted, [("22.9", "22,9"), ("38.1", "38,1")]) == written


def test_a_figure_also_written_with_a_point_is_not_given_back():
    # its quote could be either spelling (as before)
    assert issue_md.decimal_commas("TP 1 gave 22.9 tok/s; TP 2 gave 22,9 tok/s and 31,2 tok/s.") == [("31.2", "31,2")]


# ------------------------------------------------ 6. one negation right before a phrase, for stalls and shortfalls

@pytest.mark.parametrize("sentence, said", [
    ("The first allreduce makes no progress, how do I raise the timeout?", True),
    ("The worker waits forever at the barrier.", True),
    ("The worker no longer waits forever at the barrier.", False),
    ("The worker doesn't really wait forever at the barrier.", False),
    ("The worker barely sits idle between requests.", False),  # (known48: 'barely' as the shortfall reads it)
])
def test_a_stall_phrase_denied_right_before_is_no_stall(sentence, said):
    assert claims._stall_said(sentence) is said


# ---------------- 7. issue_md._weighed's own sentence bounds (fx48d: 35eca4ef, text.py's bounds there, reverted): a
# semicolon ("；" too) ends the GPU's clause, and a question ends at "?" even inside Markdown or HTML


@pytest.mark.parametrize("text, gpus", [
    ("我们有2张3090；请问4090够吗？", [("3090", 2)]),  # probe: the owned clause before "；", the question after it
    ("我们的服务器很慢；两张A100够吗？", []),  # probe: only the question weighs the A100s
    ("We have 4 GPUs; would 2x H100 be enough?", [("", 4)]),  # probe
    ("We use vLLM (e.g. on an older box). Would 2x H100 be enough?", []),  # probe: "e.g." ends no sentence
    ("Would 2x H100 be enough (for 70B)?", []),  # probe: the question mark after a bracket
])
def test_a_gpus_sentence_in_weighed(text, gpus):
    found = [(w.gpu or "", w.gpu_count or 0) for w in issue_md.parse(text, "post.md")
             if isinstance(w, Workload) and (w.gpu or w.gpu_count)]
    assert found == gpus


@pytest.mark.parametrize("text", [
    "**Would 2x RTX 4090 be enough for this model?**",  # probe w1 (wt4: no question, the 4090s weighed as owned)
    "Would 2x RTX 4090 be enough for this model?!",  # probe w2
    "Would 2x RTX 4090 be enough for this model?",
    "Would 2x H100 be enough?<br>We run vLLM.",  # probe
])
def test_a_question_ending_inside_markdown_weighs_no_gpus(text):
    found = [(w.gpu or "", w.gpu_count or 0) for w in issue_md.parse(text, "post.md")
             if isinstance(w, Workload) and (w.gpu or w.gpu_count)]
    assert found == []


@pytest.mark.parametrize("text", [
    # the review's probes w1/w2 (wt4: other 0.45 judged on the asked-about 2x RTX 4090; main: insufficient_data)
    "# Hardware question for TP serving\n\nWe serve meta-llama/Llama-3.1-70B-Instruct with vLLM 0.6.3 and "
    "--tensor-parallel-size 2; decode is slow, 9 tok/s.\n\n**Would 2x RTX 4090 be enough for this model?**\n",
    "# Hardware question for TP serving\n\nWe serve meta-llama/Llama-3.1-70B-Instruct with vLLM 0.6.3 and "
    "--tensor-parallel-size 2; decode is slow, 9 tok/s. Would 2x RTX 4090 be enough for this model?!\n",
])
def test_a_hardware_question_weighs_no_asked_about_gpus(text):
    verdict, _ = judged_issue(text)
    assert verdict.category == "insufficient_data"


def test_a_release_said_with_no_error_is_the_good_side():
    # NVIDIA/nccl#1043's title (tests/data/ut28e/nccl1043.md): "no error" is a negation to the release sides
    # (claims._NEGATED_BEFORE, kept apart from the stall's one-word _NEGATION_RIGHT_BEFORE)
    title = (DATA / "ut28e" / "nccl1043.md").read_text()
    assert claims.release_sides(title) == ({"2.16.5"}, {"2.19.3", "2.18.5"})
