"""Precision review of ut29e's readings (issue 11, review46), each tried on real lines of threads ut29e was not written
from (tests/data/review46/<reading>.toml, URLs in SOURCES.md): near-misses that look alike but must not be read that
way, and positives not used before. `xfail`: why a case still fails (strict).

- cpu_idle: ticket.cpu_bound stepping aside where the CPU load is said of an engine with no work (a polling loop);
- copies_gpu_util: ticket_rules._copies_not_shards, the copies branch of ticket.gpu_utilisation (and copies_flat);
- copies_flat: ticket.copies_flat (more copies on more GPUs, the same total: host_bound 0.55);
- client_bound: ticket_feeder.client_limits, read by ticket.client_bound (host_bound 0.6);
- no_gain_total: claims.more_gpus_no_gain reading a total said to hold."""

from pathlib import Path

import pytest
import tomllib
from conftest import case_facts, reading_gaps, threads_reused, toml_cases

from rules import claims, ticket_feeder, ticket_rules

DATA = Path(__file__).parent / "data" / "review46"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "cpu_idle"))
def test_cpu_load_with_no_work_steps_aside_only_when_idle(case):
    assert bool(ticket_rules._CPU_WITH_NO_WORK.search(case["text"])) is case["idle"]
    assert bool(list(ticket_rules.cpu_bound(case_facts(case)))) is case["cpu_bound"]


@pytest.mark.parametrize("case", toml_cases(DATA, "copies_gpu_util"))
def test_copies_read_only_without_tensor_parallelism(case):
    assert (ticket_rules._copies_not_shards(case_facts(case)) is not None) is case["copies"]


@pytest.mark.parametrize("case", toml_cases(DATA, "copies_flat"))
def test_copies_flat_only_on_more_gpus_with_the_same_total(case):
    assert bool(list(ticket_feeder.copies_flat(case_facts(case)))) is case["flat_host"]


@pytest.mark.parametrize("case", toml_cases(DATA, "client_bound"))
def test_client_named_as_the_limit(case):
    assert bool(ticket_feeder.client_limits(case_facts(case))) is case["client"]


@pytest.mark.parametrize("case", toml_cases(DATA, "no_gain_total"))
def test_total_held_only_where_it_did_not_grow(case):
    assert bool(claims.more_gpus_no_gain(case_facts(case))) is case["flat"]


NEAR = {"cpu_idle": lambda c: not c["idle"], "copies_gpu_util": lambda c: not c["copies"],
        "copies_flat": lambda c: not c["flat_host"], "client_bound": lambda c: not c["client"],
        "no_gain_total": lambda c: not c["flat"]}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    assert reading_gaps(DATA, FAMILIES, NEAR) == []


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of ut29e's own sources, nor of its test file's sentences."""
    assert threads_reused(FAMILIES, ("ut29e",), ("test_ut29e_user.py",)) == []
