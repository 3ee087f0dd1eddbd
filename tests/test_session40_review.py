"""Review of session 40's merged readings (lang40, healthy40, tried40, physics40; branch review40, not the older pass
of tests/test_review40.py): defects proved with probes and fixed.

Each sentence here is a probe (the reviewer's own short text), not a ticket: a remedy the reporter says is NOT in use
or not tried yet must not rule its cause out (claims.remedies), "it does not keep crashing" is no failure that stayed
(claims._effect with claims._NO_LUCK), and a run said to work only under a negation or a doubt ("I'm not sure it runs
correctly") is no word that the run works (claims.run_unaffected).
"""

import pytest
from conftest import report_json, said

from rules import claims

HANG = "Our job hangs at the first all-reduce on 4 GPUs. "


@pytest.mark.parametrize("sentence,path", [
    ("I haven't tried --disable-custom-all-reduce yet, it still hangs.", "custom_ar"),
    ("I have not tried --enforce-eager, the server still hangs.", "cuda_graphs"),
    ("We are not using --ipc=host and it still hangs.", "dev_shm"),
    ("We don't pass --shm-size, and the job still fails.", "dev_shm"),
    ("Without --ipc=host it still hangs.", "dev_shm"),
    ("I did not disable ACS and it still hangs.", "acs"),
    ("I haven't upgraded the driver, it still hangs.", "driver_release"),
])
def test_a_remedy_not_in_use_rules_nothing_out(sentence, path):
    assert not claims.tried_without_effect(said(HANG + sentence), path)


@pytest.mark.parametrize("sentence", [
    # the same defect in the NCCL settings' reading (tried39), one helper for both (claims._not_in_use)
    "I haven't tried NCCL_P2P_DISABLE=1 yet, it still hangs.",
    "We don't set NCCL_P2P_DISABLE=1 and it still hangs.",
])
def test_a_setting_not_in_use_rules_nothing_out(sentence):
    assert not claims.tried_without_effect(said(HANG + sentence), "p2p")


@pytest.mark.parametrize("sentence", ["I set NCCL_P2P_DISABLE=1, but it did not help.",
                                      "NCCL_P2P_DISABLE=1 did not help."])
def test_a_setting_in_use_that_did_not_help_is_still_read(sentence):
    assert claims.tried_without_effect(said(HANG + sentence), "p2p")


@pytest.mark.parametrize("sentence,path", [
    # the same remedies in use and the failure stayed: still read (guards for the check above)
    ("I added --shm-size 16g and it still hangs.", "dev_shm"),
    ("--shm-size 16g, but it did not help.", "dev_shm"),
    ("I disabled ACS in the BIOS and it still hangs.", "acs"),
    ("I tried --disable-custom-all-reduce and vLLM continues to hang.", "custom_ar"),
    ("Disabled the IOMMU in the BIOS but no luck, the result is the same.", "acs"),
])
def test_a_remedy_in_use_that_did_not_help_is_still_read(sentence, path):
    assert claims.tried_without_effect(said(HANG + sentence), path)


@pytest.mark.parametrize("sentence", [
    "It does not keep crashing after I set NCCL_P2P_DISABLE=1.",
    "With NCCL_P2P_DISABLE=1 it doesn't keep hanging.",
])
def test_a_failure_that_no_longer_repeats_is_not_no_effect(sentence):
    assert not claims.tried_without_effect(said(HANG + sentence), "p2p")


@pytest.mark.parametrize("sentence", [
    "With NCCL_P2P_DISABLE=1 the results are the same as on a single GPU.",
    "I set NCCL_P2P_DISABLE=1 and the results were the same as with one GPU.",
])
def test_results_the_same_as_a_reference_are_no_no_effect(sentence):
    # claims._NO_LUCK's "results are the same" (tried40) is the result unchanged, not equal to another run's
    assert not claims.tried_without_effect(said(HANG + sentence), "p2p")


@pytest.mark.parametrize("sentence", ["Set NCCL_P2P_DISABLE=1, the results are the same as before.",
                                      "Set NCCL_P2P_DISABLE=1 - result are the same."])
def test_results_unchanged_still_read(sentence):
    assert claims.tried_without_effect(said(HANG + sentence), "p2p")


def test_garbage_output_fixed_by_p2p_off_keeps_the_p2p_lead(tmp_path):
    path = tmp_path / "issue.md"
    path.write_text("# Garbage output with TP=2\n\nvLLM with tensor_parallel_size=2 on two RTX 4090 gives garbage "
                    "output. With NCCL_P2P_DISABLE=1 the results are the same as on a single GPU.\n")
    assert report_json("ticket", str(path))["verdict"]["category"] == "p2p_disabled"


def test_docker_system_error_keeps_shm_when_ipc_host_is_not_used(tmp_path):
    # before review40 the shm lead was dropped: "not using --ipc=host ... still fails" read as --ipc=host tried
    path = tmp_path / "issue.md"
    path.write_text("# NCCL error in docker with TP=2\n\nI run vLLM in a docker container on one node with two A100 "
                    "GPUs and tensor_parallel_size=2.\nStartup fails with `NCCL error: unhandled system error`.\n"
                    "We are not using --ipc=host and it still fails the same way.\n")
    assert report_json("ticket", str(path))["verdict"]["category"] == "shm_too_small"


@pytest.mark.parametrize("sentence", [
    "I'm not sure it runs correctly, the log prints this warning.",
    "I don't think it works correctly, the log prints this warning.",
])
def test_a_doubted_run_is_no_word_that_it_works(sentence):
    assert claims.run_unaffected(said(sentence)) is None


def test_the_run_said_to_work_is_still_read():
    assert claims.run_unaffected(said("Training proceeds correctly, but emits these misleading messages."))
