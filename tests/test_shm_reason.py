"""A shared-memory failure says why it failed: NCCL prints strerror(errno) after the call (include/shm.h "Call to
shm_open failed : %s", misc/shmutils.cc "error: %s (%d)"). Only a full /dev/shm (ENOSPC, a failed posix_fallocate)
is a size problem; "Permission denied" is /dev/shm's mode (1777 per shm_overview(7)), "No such file or directory" a
segment another rank cannot see (https://man7.org/linux/man-pages/man3/shm_open.3.html). Checked on the development
case it was studied from (n003, NVIDIA/nccl#328), on three threads not in the corpus (tests/data/ut14s/SOURCES.md)
and on sentences written here."""

from pathlib import Path

import pytest
from conftest import judged_file, judged_issue
from test_ticket_questions import development_case

from diagnose.artifacts import nccl_log
from diagnose.evidence import Facts, NcclEvent
from rules.engine import evaluate, ticket_verdict

DATA = Path(__file__).parent / "data" / "ut14s"





@pytest.mark.parametrize("line, code", [
    ("node08:1:2 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied", "EACCES"),
    ("g1:1:2 [0] misc/shmutils.cc:129 NCCL WARN Error while attaching to shared memory segment /dev/shm/nccl-ab "
     "(size 14156128), error: No such file or directory (2)", "ENOENT"),
    ("h:1:2 [3] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-x to 5967876 bytes, error: "
     "No space left on device (28)", "ENOSPC"),
    ("h:1:2 [3] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-x to 5967876 bytes", None),
])
def test_the_parser_records_the_errno_it_reads(line, code):
    (event,) = [r for r in nccl_log.parse(line, "log") if isinstance(r, NcclEvent) and r.kind == "shm_alloc_failed"]
    assert event.data.get("errno") == code


@pytest.mark.parametrize("name", ["nccl1589", "nccl2190"])
def test_public_enoent_attach_failures_are_not_a_small_shm(tmp_path, name):
    """NVIDIA/nccl#1589 (cured by another NCCL release) and #2190 (252 GB /dev/shm, 98 % free): both were
    shm_too_small at 0.9."""
    verdict, rules = judged_file(tmp_path, DATA, name)
    assert verdict.category == "other" and verdict.confidence < 0.7
    assert "host.shm_too_small" not in rules
    assert "ENOENT" in rules["host.shm_access"].title


def test_public_failed_extend_stays_a_full_shm(tmp_path):
    """NVIDIA/nccl-tests#166: posix_fallocate could not extend the segment: /dev/shm is full."""
    verdict, rules = judged_file(tmp_path, DATA, "nccltests166")
    assert verdict.category == "shm_too_small" and "host.shm_access" not in rules


def test_development_permission_denied_is_other(tmp_path):
    """n003 (NVIDIA/nccl#328): 'Call to shm_open failed : Permission denied', fixed by chmod on /dev/shm."""
    findings = evaluate(facts := development_case(tmp_path, "n003"))
    assert ticket_verdict(facts, findings).category == "other"
    assert "chmod 1777" in next(f for f in findings if f.rule == "host.shm_access").fix


@pytest.mark.parametrize("text, category", [
    ("# NCCL init fails\n\nEvery rank logs shm_open failed: Permission denied and then the job dies.", "other"),
    ("# vLLM TP=2 crash\n\nThe workers die with 'Error while creating shared memory segment /dev/shm/nccl-1 "
     "(size 9637892), error: Operation not permitted (1)' on startup.", "other"),
    ("# TP=4 crash\n\nNCCL says shm_open failed: No space left on device inside our docker container.",
     "shm_too_small"),
    ("# crash in docker\n\nError while creating shared memory segment /dev/shm/nccl-Ab (size 7340384) when TP=2.",
     "shm_too_small"),
])
def test_the_reason_in_the_reporters_words(text, category):
    verdict, rules = judged_issue(text)
    assert rules["ticket.shm_error"].category == category


def test_one_full_shm_line_beside_a_permission_line_is_still_size():
    log = ("h:1:2 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied\n"
           "h:1:3 [1] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-x to 5967876 bytes\n")
    facts = Facts()
    facts.add(*nccl_log.parse(log, "log"))
    rules = {f.rule: f for f in evaluate(facts)}
    assert "host.shm_access" not in rules and rules["host.shm_too_small"].category == "shm_too_small"


@pytest.mark.parametrize("text", [
    "# TP slow\n\nNo shm errors, no Permission denied anywhere; TP=2 is just slower than I hoped on 2x A100.",
    "# TP slow\n\n/dev/shm is 64 GB and nothing fails, but TP=4 decodes at 20 tok/s.",
])
def test_no_shared_memory_failure_said_gives_no_shm_finding(text):
    _, rules = judged_issue(text)
    assert "host.shm_access" not in rules and "ticket.shm_error" not in rules
