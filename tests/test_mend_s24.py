"""Mends of the ticket's readings of the reporter's words (issue 11, session 24), each tested on real sentences kept
with their threads in tests/data/mend_s24/*.toml (`adapted` says where the words were put in another form):

1. a GPU driver release said in prose (and which release works) reaches ticket.driver_change;
2. accelerate's max_memory, device maps and offload messages that leave weights on the host are partial_offload.
"""

from pathlib import Path

import pytest
import tomllib
from conftest import judged_issue, toml_cases

DATA = Path(__file__).parent / "data" / "mend_s24"


def _cases(name: str):
    return toml_cases(DATA, name)


def test_every_case_names_its_source():
    for path in sorted(DATA.glob("*.toml")):
        for case in tomllib.loads(path.read_text())["case"]:
            assert case["url"].startswith("https://"), (path.name, case)


# --------------------------------------------------------------------------- 1. driver releases in prose

@pytest.mark.parametrize("case", _cases("driver_release_prose"))
def test_a_driver_release_in_prose_is_read_with_the_one_that_works(case):
    from rules import claims

    text = case["sentence"]
    assert [r for r, _, _ in claims.driver_releases(text)] == case["driver"], text
    if "cuda" in case:
        assert claims.cuda_releases(text) == case["cuda"], text
    change = claims.driver_change(text)
    if "good" in case:
        assert change is not None and change["good"] == case["good"], change
    elif change is not None:
        assert change["good"] is None, change


@pytest.mark.parametrize("case", _cases("driver_release_prose"))
def test_ticket_driver_change_answers_a_driver_regression_only(case):
    verdict, found = judged_issue(f"# Slower after a driver change\n\n{case['sentence']}\n")
    f = found.get("ticket.driver_change")
    assert bool(f) is case["regression"], (case["sentence"], f and f.title)
    if f and case.get("good"):
        assert case["good"] in f.title and case["good"] in f.fix, f.title  # the release to go back to, named


# --------------------------------------------------------------------------- 2. accelerate's offload arguments

@pytest.mark.parametrize("case", _cases("accelerate_offload"))
def test_accelerate_budgets_maps_and_messages_that_leave_weights_on_the_host_are_offload(case):
    from conftest import said

    from rules import claims

    found = [c for c in claims.partial_offload(said(case["sentence"])) if not c.negated and not c.guess]
    assert bool(found) is case["offload"], (case["sentence"], [c.data for c in found])
    if "on_gpu" in case:
        counted = next(c for c in found if c.data["form"] == "offloaded")
        assert (counted.data["on_gpu"], counted.data["layers"]) == (case["on_gpu"], case["layers"])


def test_a_printed_device_map_with_blocks_on_the_cpu_answers_the_ticket_as_partial_offload():
    # AutoGPTQ/AutoGPTQ#78: the device map max_memory={0: "2GIB", "cpu": "30GIB"} produced, 8 of 40 blocks on GPU 0
    case = next(c.values[0] for c in _cases("accelerate_offload") if c.values[0].get("on_gpu"))
    verdict, found = judged_issue(f"# Generation is very slow\n\n{case['sentence']}\n")
    f = found.get("ticket.partial_offload")
    assert f is not None and "8 of 40 layers on the GPU" in f.title, f and f.title
