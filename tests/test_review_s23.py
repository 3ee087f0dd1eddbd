"""Review of the ticket readings two support passes added on session 23 (ut23b, ut23c; issue 11), on real sentences
from other threads that use the same words for something else, and on real paraphrases the passes were not written
from (tests/data/review_s23/*.toml, each with its thread's address; `adapted` says where words were cut or joined):

- the release named as the cure (claims._CURED_WITH, release_sides): "fixed" of a driver, a crate or a caller's
  workaround names no NCCL release;
- the collective_mismatch catalog row: shape and size errors in a model's own code name no collective;
- claims.cpu_figure: a GPU figure beside a CPU word in another clause stays the GPU's;
- the GPU or a rank waiting on host work (cpu_ab): a rank waiting on a peer, a lock or the proxy's work is none;
- the GPUs called idle in a hang (ticket_rules.gpu_utilisation): a slow job that does not hang keeps its reading;
- CUDA graphs said not to run (eager_flag): a supposition in the clause before the words ("-1 if cuda graph is not
  used", vLLM's docstring) made them the reporter's run; it now makes them a guess (claims.conditional with
  when=False, _READ_IN_SUPPOSITIONS), as "unless" already ruled a flag out.

A case the readings cannot hold without taking sentences that mean otherwise is a strict xfail with its reason."""

from pathlib import Path

import pytest
from conftest import finding, report_json, said, toml_cases, unsourced_cases

from rules import claims
from rules.catalog import engine_errors

DATA = Path(__file__).parent / "data" / "review_s23"


def _cases(name: str) -> list:
    return toml_cases(DATA, name)


def test_every_sentence_names_its_thread():
    assert unsourced_cases(DATA) == []


@pytest.mark.parametrize("case", _cases("cured_release"))
def test_the_release_named_as_the_cure(case):
    good, bad = claims.release_sides(case["text"])
    assert (sorted(good), sorted(bad)) == (case["good"], case["bad"])


MISMATCH = next(e for e in engine_errors() if e.id == "collective_mismatch")


@pytest.mark.parametrize("case", _cases("collective_mismatch"))
def test_collective_mismatch_is_read_where_ranks_diverge(case):
    read = [c for c in claims.known_errors(said(case["text"])) if c.data["error"] is MISMATCH]
    assert bool(read) is case["read"]


@pytest.mark.parametrize("case", _cases("cpu_figure"))
def test_a_cpu_figure_is_not_the_gpus(case):
    assert [c.data["percent"] for c in claims.find(said(case["text"]), "gpu_util")] == case["figures"]


@pytest.mark.parametrize("case", _cases("host_wait"))
def test_waiting_on_the_host_is_a_host_lead(case):
    observed = [c for c in claims.find(said(case["text"]), "cpu_ab") if not c.guess]
    assert bool(observed) is case["read"], [c.quote for c in observed]


@pytest.mark.parametrize("case", _cases("idle_in_hang"))
def test_idle_gpus_in_a_hang_are_no_starving_host(case, tmp_path):
    (tmp_path / "issue.md").write_text(case["text"] + "\n")
    report = report_json("ticket", str(tmp_path / "issue.md"))
    assert bool(finding(report, "ticket.gpu_utilisation")) is case["host_lead"]


@pytest.mark.parametrize("case", _cases("graphs_not_run"))
def test_graphs_said_not_to_run(case):
    observed = [c for c in claims.find(said(case["text"]), "eager_flag") if not c.guess]
    assert bool(observed) is case["eager"], [c.quote for c in observed]


# The mend, on negations written for it (the threads' sentences are in graphs_not_run.toml).
@pytest.mark.parametrize("text, eager", [
    ("If CUDA graph is not used, decode is slower.", False),  # a supposition
    ("Unless the CUDA graph is replayed, decode is slower.", False),
    ("When I run with --enforce-eager, decode is slower.", True),  # "when" reports the reporter's run
    ("If I look at the profile, the CUDA graph was not launched.", True),  # the condition's clause ends at the comma
    ("The CUDA graph was not launched, so every kernel came from the host.", True),
])
def test_the_graph_reading_mends(text, eager):
    assert bool([c for c in claims.find(said(text), "eager_flag") if not c.guess]) is eager
