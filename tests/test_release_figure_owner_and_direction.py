"""Issue 11 (s18, the reviewer's points on the merged s17 work): whose figure a release comparison reads, and which
release is the good one (rules.claims: release_figures, changed_to, release_direction; rules.ticket_rules._releases).

- A figure written after a release that a change left ("after upgrading from 0.12.0 to 0.13.0 we get 3000 tok/s")
  is the run on the release moved to; a parenthesis or relative clause of the release's own ("from 0.5.4 (42 tok/s)",
  "coming from 0.5.4, where we had 42 tok/s") still tells of it. A figure right before the move to a release
  ("only 28tok/s after upgrading to v0.12.0") is that release's.
- The good release is read from the words that move between them, not from their order: the release gone back to
  works unless the words right after it call it worse; a forward move that cured it makes the newer one the good one.

Real threads (each quoted briefly, with its address): NVIDIA/TensorRT-LLM#2802, vllm-project/vllm#31030,
vllm-project/vllm#2367, vllm-project/vllm#8284; the rest written here, with negations (a question, a guess, a plan).
"""

from pathlib import Path

import pytest
from conftest import report_json

from rules import claims

DATA = Path(__file__).parent / "data" / "ut17"

# https://github.com/vllm-project/vllm/issues/31030 (the reporter's own words)
VLLM31030 = ("With v0.10.2 we achieve a generation rate of ~60tok/s but only 28tok/s after upgrading to v0.12.0.\n\n"
             "Sadly, considering this is a production environment I am unable to take time to test more and reverted "
             "to v0.10.2 until we know more about what could be the cause of this regression.")


@pytest.mark.parametrize("text, versions, told", [
    # NVIDIA/TensorRT-LLM#2802: the old release's figure, told in the sentence after it, stays its own
    ((DATA / "trtllm2802.md").read_text(), ["0.18.0", "0.12.0"], {"0.12.0": (6200.0, "tokens/s")}),
    # vllm-project/vllm#31030: the figure before "after upgrading to v0.12.0" is the new release's
    (VLLM31030, ["0.10.2", "0.12.0"], {"0.10.2": (60.0, "tok/s"), "0.12.0": (28.0, "tok/s")}),
    # vllm-project/vllm#2367: one figure per release, each after its own
    ("tp = 2\ngpu: A100-40G x2\nv2.0.7: 16tokens/s\nv2.0.6: 21tokens/s", ["2.0.7", "2.0.6"],
     {"2.0.7": (16.0, "tokens/s"), "2.0.6": (21.0, "tokens/s")}),
    # vllm-project/vllm#8284 (a comment): "gives" after each release
    ("On a RTX4090, llama3.1 8B fp8\n\nv0.5.3 gives 90 tok/s \nv0.6.0 gives 87 tok/s", ["0.5.3", "0.6.0"],
     {"0.5.3": (90.0, "tok/s"), "0.6.0": (87.0, "tok/s")}),
    # the source of a from/to phrase: the figure after it is the target's
    ("After upgrading vLLM from 0.12.0 to 0.13.0 we get 3000 tok/s.", ["0.12.0", "0.13.0"],
     {"0.13.0": (3000.0, "tok/s")}),
    ("We are on vLLM 0.13.0 now. After upgrading from 0.12.0 we get 3000 tok/s.", ["0.13.0", "0.12.0"],
     {"0.13.0": (3000.0, "tok/s")}),
    ("Since moving from vLLM 0.12.0, throughput is only 3000 tok/s on 0.13.0.", ["0.12.0", "0.13.0"],
     {"0.13.0": (3000.0, "tok/s")}),
    ("vLLM 0.12.0 -> 0.13.0: 3000 tok/s", ["0.12.0", "0.13.0"], {"0.13.0": (3000.0, "tok/s")}),
    # negations: the release's own parenthesis or clause, and a figure said of each
    ("We upgraded vLLM from 0.5.4 (42 tok/s) to 0.6.3 (31 tok/s).", ["0.5.4", "0.6.3"],
     {"0.5.4": (42.0, "tok/s"), "0.6.3": (31.0, "tok/s")}),
    ("Coming from 0.5.4, where we had 42 tok/s, vLLM 0.6.3 is slow.", ["0.5.4", "0.6.3"], {"0.5.4": (42.0, "tok/s")}),
    ("vLLM 0.12.0: 6000 tok/s. After the upgrade to 0.13.0: 3000 tok/s.", ["0.12.0", "0.13.0"],
     {"0.12.0": (6000.0, "tok/s"), "0.13.0": (3000.0, "tok/s")}),
    ("We get 31 tok/s since we moved from vLLM 0.5.4.", ["0.5.4", "0.6.3"], {}),  # not the release left
])
def test_whose_figure(text, versions, told):
    assert claims.release_figures(text, versions) == told


@pytest.mark.parametrize("text, versions, good", [
    (VLLM31030, ["0.10.2", "0.12.0"], "0.10.2"),  # upgraded to 0.12.0 at 28 tok/s, reverted to 0.10.2
    ("After upgrading vLLM from 0.12.0 to 0.13.0 we get 3000 tok/s, it is much slower.", ["0.12.0", "0.13.0"],
     "0.12.0"),
    ("vLLM 0.6.3 gives 20 tok/s on our box. Downgrading to 0.5.4 fixed it: 40 tok/s.", ["0.6.3", "0.5.4"], "0.5.4"),
    ("SGLang 0.4.5 hangs at startup; we rolled back to SGLang 0.4.3 for now.", ["0.4.5", "0.4.3"], "0.4.3"),
    # not by order: the newer one is the good one
    ("We were on vLLM 0.7.0 at 40 tok/s and rolled back to 0.6.3, which is even slower: 25 tok/s.", ["0.7.0", "0.6.3"],
     "0.7.0"),
    ("vLLM 0.6.3: 20 tok/s. Upgrading to 0.7.0 fixed it, 0.7.0: 40 tok/s.", ["0.6.3", "0.7.0"], "0.7.0"),
    ("We downgraded vLLM from 0.7.0 to 0.6.3 and it is not slower, 40 tok/s as before.", ["0.7.0", "0.6.3"], "0.6.3"),
    # nothing said of a move: a question, a guess, a plan, or no move at all
    ("vLLM 0.6.3 is slower than 0.5.4. Should we roll back to 0.5.4?", ["0.6.3", "0.5.4"], None),
    ("vLLM 0.6.3 is slower than 0.5.4. Maybe downgrading to 0.5.4 would fix it.", ["0.6.3", "0.5.4"], None),
    ("vLLM 0.6.3 is slower than 0.5.4. We will downgrade to 0.5.4 next week.", ["0.6.3", "0.5.4"], None),
    ("vLLM 0.6.3 is slower than 0.5.4.", ["0.6.3", "0.5.4"], None),
])
def test_which_release_is_good(text, versions, good):
    assert claims.release_direction(text, versions) == good


def _releases_evidence(tmp_path, text: str) -> list[dict]:
    (tmp_path / "issue.md").write_text(text)
    report = report_json("ticket", str(tmp_path))
    f = next(f for f in report["findings"] if f["rule"] == "ticket.engine_versions")
    return [e for e in f["evidence"] if e["measured"] is not None]


def test_the_comparison_measures_the_slow_release_against_the_good_one(tmp_path):
    # the rollback from 0.7.0 to 0.6.3 made it slower: the slow run is the older release's, measured against 0.7.0's
    text = ("# vLLM got slower after a rollback\n\nLlama-3-8B on one L40S. We were on vLLM 0.7.0 at 40 tok/s and "
            "rolled back to 0.6.3, which is even slower: 25 tok/s. Same flags, same prompts.\n")
    (e,) = _releases_evidence(tmp_path, text)
    assert (e["measured"], e["expected"]) == (25.0, 40.0) and "0.6.3 (expected: 0.7.0's figure" in e["detail"]


def test_by_order_where_no_move_is_said(tmp_path):
    text = ("# Regression between releases\n\nLlama-3-8B on one L40S, same flags: vLLM 0.5.4: 42 tok/s; vLLM 0.6.3: "
            "31 tok/s. It is a regression.\n")
    (e,) = _releases_evidence(tmp_path, text)
    assert (e["measured"], e["expected"]) == (31.0, 42.0)
