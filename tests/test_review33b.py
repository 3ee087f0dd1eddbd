"""(review33b, issue 11) Precision review of ab33, warnings33 and the engine_errors rows.

1. A catalog message (engine_errors.toml, engine_notices.toml) told as another person's, in the way issue threads cite
   earlier ones ("Someone in #1234 got X, but for me it just hangs"), is not this ticket's message
   (claims.anothers_report, read in claims._error_said). The reporter's own message stays: said with "I"/"we", "Same
   error as #1234: X", taken up after it ("and I get it too"), or told by a subject that is the ticket's own in a ticket
   filed for a customer ("The user reports ...", "our team ... they got ...").
   No kept paste under tests/data has a sentence of this shape (every kept paste's known-error and notice claims are
   unchanged): these are paraphrases of the form, with near-misses that must keep firing.
2. A Markdown table whose two columns name a setting, not the change ("| Without NVLink | With NVLink |", "| Without
   CUDA graph | With `--useCudaGraph` |": header forms of public benchmark write-ups), is no before/after of a bisected
   PR (claims.ab_table_figures); "Before #26496 | After #26496" (sgl-project/sglang#28224) and "with the PR" stay.
"""
from pathlib import Path

import pytest
from conftest import finding, report_json

from rules import claims


def ticket(tmp_path: Path, title: str, body: str) -> dict:
    path = tmp_path / "issue.md"
    path.write_text(f"# {title}\n\n{body}\n")
    return report_json("ticket", str(path))


# --------------------------------------------------------------------------------- another person's message

ANOTHERS = [
    ("TP=2 hangs", "vLLM 0.6.3, 2x A100, TP=2. Someone in #1234 got CUBLAS_STATUS_EXECUTION_FAILED with this model, "
     "but for me the server just hangs after the first request."),
    ("decode slow", "Running SGLang 0.4.1 with --tp 2 on two RTX 4090. In the linked issue they got \"Capture cuda "
     "graph failed\" but my server starts fine; decode is only 20 tok/s."),
    ("slow decode", "vLLM 0.5.4 on 4x L40S, TP=4. @alice hit \"CUDA error: an illegal memory access was encountered\" "
     "with the same model in #7297. Here generation is just slow at 9 tok/s."),
    ("slower at TP 16", "Similar to #5516, where the reporter hit an illegal memory access was encountered with TP 16. "
     "In my case throughput is 40% lower than TP 8 and nothing crashes."),
    ("slow decode", "Serving Llama-3-70B with vLLM 0.5.4 on 4x L40S. Another user reported \"CUDA error: an illegal "
     "memory access was encountered\" on the same model; generation here is just slow at 9 tok/s."),
]


@pytest.mark.parametrize("title,body", ANOTHERS)
def test_another_persons_error_is_not_the_tickets(tmp_path, title, body):
    r = ticket(tmp_path, title, body)
    assert finding(r, "ticket.known_error") is None, body


def test_another_persons_notice_is_not_the_tickets(tmp_path):
    """warnings33's notices are read through the same catalog reader: another person's eager notice is no eager mode."""
    r = ticket(tmp_path, "slow decode", "vLLM 0.6.3, 2x A10G, TP=2, 14 tok/s decode on a 13B model. Someone in #9012 "
               "saw \"Since enforce-eager is enabled, async output processor cannot be used\" but I do not run eager.")
    assert finding(r, "ticket.engine_notice") is None
    assert r["verdict"]["category"] != "eager_mode"


OWN = [
    ("crash", "Like the user in #7297, I also get \"CUDA error: an illegal memory access was encountered\" with vLLM "
     "0.5.4 and TP=4 on 4x L40S.", "illegal_address"),
    ("crash", "Same error as #1234: CUBLAS_STATUS_EXECUTION_FAILED when I run vLLM 0.6.3 with TP=2 on 2x A100.",
     "cublas_failure"),
    ("crash", "Someone in #1234 got CUBLAS_STATUS_EXECUTION_FAILED with vLLM 0.6.3 on 2x A100 TP=2, and I get it too "
     "on the same setup.", "cublas_failure"),
    ("crash", "The user reports that vLLM 0.6.3 on our 2x A100 cluster with TP=2 stops with "
     "CUBLAS_STATUS_EXECUTION_FAILED.", "cublas_failure"),
    ("crash", "Our ML team runs vLLM 0.6.3 on 2x A100 with TP=2; they got CUBLAS_STATUS_EXECUTION_FAILED twice today.",
     "cublas_failure"),
    ("crash", "Someone suggested TP=2. We got CUBLAS_STATUS_EXECUTION_FAILED with vLLM 0.6.3 on 2x A100.",
     "cublas_failure"),
]


@pytest.mark.parametrize("title,body,row", OWN)
def test_the_reporters_own_error_still_reads(tmp_path, title, body, row):
    r = ticket(tmp_path, title, body)
    f = finding(r, "ticket.known_error")
    assert f is not None and row.replace("_", " ") in f["title"], body


def test_the_reporters_own_notice_still_reads(tmp_path):
    r = ticket(tmp_path, "slow decode", "SGLang 0.4.1, 2x A10G, TP=2, decode is 14 tok/s. The log says: Cuda graph is "
               "disabled because of using torch native attention backend")
    assert r["verdict"]["category"] == "eager_mode"


def test_anothers_report_reader():
    assert claims.anothers_report("Someone in #1234 got ")
    assert claims.anothers_report("In #1234 they got ")
    assert not claims.anothers_report("they got ")  # no other thread named: the ticket's own people
    assert not claims.anothers_report("Someone in #1234 got it and now I get ")
    assert not claims.anothers_report("Someone in #1234 got ", ", and I get it too")


# ------------------------------------------------------------------------------- table columns naming a setting

HEAD = "| Workload | {a} | {b} | Change |\n| --- | ---: | ---: | ---: |\n| decode | 120 tok/s | 80 tok/s | -33% |\n"


@pytest.mark.parametrize("a,b", [("Before #26496", "After #26496"), ("without the PR", "with the PR"),
                                 ("Before", "After"), ("Before (tok/s)", "After (tok/s)"),
                                 ("before abc1234f", "after abc1234f")])
def test_columns_naming_the_change_are_read(a, b):
    assert claims.ab_table_figures(HEAD.format(a=a, b=b)) == {"before": (120.0, "tok/s"), "after": (80.0, "tok/s")}


@pytest.mark.parametrize("a,b", [("With NVLink", "Without NVLink"), ("Without NVLink", "With NVLink"),
                                 ("without cuda graph", "with `--useCudaGraph`"), ("Before tuning", "After tuning")])
def test_columns_naming_a_setting_are_no_build_ab(a, b):
    assert claims.ab_table_figures(HEAD.format(a=a, b=b)) == {}



# ------------------------------------------------------------------------- a release change ruled out (ab33)

def _versions(tmp_path, body: str) -> dict | None:
    return finding(ticket(tmp_path, "decode on 2x L4", "Llama-3-8B on 2x L4, TP=2. " + body), "ticket.engine_versions")


@pytest.mark.parametrize("body", [
    "vLLM 0.6.3: 15 tok/s. Downgrading to 0.5.4 did not help, same 15 tok/s.",
    "vLLM 0.6.3: 15 tok/s. The upgrade from 0.5.4 is not the problem, 0.5.4 gave the same 15 tok/s.",
    "vLLM 0.6.3: 15 tok/s. The upgrade from 0.5.4 made no difference.",
])
def test_release_change_ruled_out_is_no_ab(tmp_path, body):
    """One figure said of both releases, or the change itself ruled out after it: no release A/B (fired on main)."""
    assert _versions(tmp_path, body) is None, body


@pytest.mark.parametrize("body", [
    "vLLM 0.6.3: 15 tok/s. Upgrading to 0.6.3 did not help, and it is slower than 0.5.4 which gave 22 tok/s.",
    "vLLM 0.6.3: 15 tok/s. The upgrade from 0.5.4 is the problem: 0.5.4 gave 22 tok/s.",
    "I didn't change anything except upgrading vLLM from 0.5.4 to 0.6.3, and decode is 15 tok/s instead of 22 tok/s.",
])
def test_release_change_said_still_reads(tmp_path, body):
    f = _versions(tmp_path, body)
    assert f is not None and f["severity"] == "warning", body


# ------------------------------------------------- ncclrel33's split-share row: everyday words for sharing

def test_a_job_sharing_the_node_is_no_split_share_hang(tmp_path):
    """"sharing resources" / "shared resources" are also how a multi-tenant cluster is described; the row's feature
    (splitShare, NCCL_COMM_SPLIT_SHARE_RESOURCES, ncclCommSplit) is never named: no nccl_regression (fired on main)."""
    r = ticket(tmp_path, "NCCL hang on shared nodes", "Two nodes of 8x H100, NCCL 2.21.5, PyTorch DDP. The job hangs "
               "at the first all_reduce when another job is sharing resources on the same node.")
    assert r["verdict"]["category"] != "nccl_regression"


def test_split_share_named_still_fires(tmp_path):
    r = ticket(tmp_path, "sub-groups never connect", "We split 6 sub-groups with ncclCommSplit and splitShare=1 on "
               "NCCL 2.21.5, 2 nodes x 8 H100. Setup with shared resources hangs before the first collective.")
    assert r["verdict"]["category"] == "nccl_regression"


def test_a_harmless_notice_asked_about_is_answered_whoever_saw_it(tmp_path):
    """The harmless reading answers a question about the message itself: another person's sighting of it still asks."""
    r = ticket(tmp_path, "question", "Someone in #4021 saw \"Torch was not compiled with flash attention\" and said it "
               "was slow. Does that warning matter for me? I get 20 it/s on a 4090.")
    assert finding(r, "ticket.engine_notice_harmless") is not None
