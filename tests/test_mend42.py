"""A configuration fact is no verdict for an error that names its own cause (issue 11, mend42).

topology.virtualization_no_p2p read any failure of a multi-GPU job under WSL 2 as WSL's missing peer-to-peer:
vllm-project/vllm#2520, an HTTP 404 from a route the demo server does not have, got virtualization_no_p2p 0.69. The
WSL reading now sets aside a failure whose message names its own cause elsewhere (claims.error_elsewhere: a message of
the error catalog, an HTTP 4xx, an import, a tokenizer or model configuration, out of memory), unless the ticket also
names the path between the GPUs failing (NCCL's errors, a hang). Real threads, none used before (SOURCES.md)."""

from pathlib import Path

import pytest
import tomllib
from conftest import judged_issue, said, unlisted_cases

from rules import claims

DATA = Path(__file__).parent / "data" / "mend42"
CASES = tomllib.loads((DATA / "cases.toml").read_text())["case"]


def _ids(case: dict) -> str:
    return case["url"].split("github.com/")[1].replace("/issues/", "#")


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_an_error_with_its_own_cause_is_read_only_where_no_path_between_gpus_failed(case):
    found = claims.error_elsewhere(said(case["text"]))
    assert (found is None) is case["keep"], found


@pytest.mark.parametrize("case", [c for c in CASES if c.get("verdict")], ids=_ids)
def test_a_wsl_ticket_whose_gpus_fail_to_talk_keeps_the_virtualisation_verdict(case):
    verdict, _ = judged_issue(case["text"])
    assert verdict.category == case["verdict"], verdict


@pytest.mark.parametrize("case", [c for c in CASES if not c["keep"]], ids=_ids)
def test_wsl_beside_an_error_with_its_own_cause_is_no_verdict(case):
    verdict, findings = judged_issue(case["text"])
    assert verdict.category != "virtualization_no_p2p", verdict
    assert "topology.virtualization_no_p2p" not in findings


def test_every_case_names_its_thread_and_both_sides_are_tried():
    assert not unlisted_cases(DATA)
    assert sum(c["keep"] for c in CASES) >= 3 and sum(not c["keep"] for c in CASES) >= 3
