"""A remedy other than an NCCL setting tried without effect rules its cause out (issue 11, pass tried40).

tried39 read "I set NCCL_P2P_DISABLE=1 and it still hangs" as evidence against the P2P path. The same reading holds
for the other documented workarounds: an engine flag (--disable-custom-all-reduce, --enforce-eager), a container
option (--shm-size, --ipc=host), a platform change (ACS disabled, iommu=pt, VT-d off) and a release moved to (NCCL,
the GPU driver). claims.remedies() reads them as "remedy" claims with the setting's effect reading
(claims._tried_effect) and claims.tried_without_effect(facts, path) returns them by the cause they take away
(claims.REMEDIES). Real sentences come from public threads (cited beside each, none in /work/tools/taken.txt); the
rest are probes, with negations, hearsay, advice and near-misses that must not read as "no effect".
"""

import pytest
from conftest import report_json, said

from rules import claims

HANG = "Our job hangs at the first all-reduce on 4 GPUs. "


def remedies(text: str) -> list[tuple[str, str | None]]:
    """(name, effect) of every remedy the reporter's text names, guesses left out."""
    return [(c.data["name"], c.data["effect"]) for c in claims.find(said(text), "remedy") if not c.guess]


# Tried, and it helped: real sentences (a fix, never "no_help").
REAL_FIXES = [
    ("Adding `--disable-custom-all-reduce` fixes startup immediately.",
     "disable_custom_all_reduce"),  # 1CatAI/1Cat-vLLM#652
    ("‘--disable_custom_all_reduce’ seem to work.", "disable_custom_all_reduce"),  # vllm-project/vllm#8410
    ("This may be the reason, not sure, but after setting disable-custom-all-reduce, the problem no longer occurs.",
     "disable_custom_all_reduce"),  # sgl-project/sglang#1148
    ("Using `--ipc=host` fixed the issue for me.", "shm_size"),  # vllm-project/vllm#1393
    ("nevermind, solved by **disabling VT-d** in the bios", "acs_off"),  # tinygrad/open-gpu-kernel-modules#30
]

# Real sentences that name a remedy under a condition or as a question: never read as tried without effect.
REAL_NOT_NO_HELP = [
    # vllm-project/vllm#17167 (its title): what the flag does, said under "if"
    ("VLLM will hang during multiple node startup, but if ‘--enforce-eager’ configuration is enabled, it can start "
     "normally.", "cuda_graphs"),
    ("Can you try `--enforce-eager`?", "cuda_graphs"),  # vllm-project/vllm#17151, a maintainer's question
]

# Tried, and the failure stayed (the brief's forms: still / same / even with / Chinese / advice answered): probes.
PROBE_NO_HELP = [
    ("I added --shm-size 16g and it still hangs.", "dev_shm"),
    ("Even with --ipc=host it hangs the same way.", "dev_shm"),
    ("docker run 加了 --shm-size 32g 还是卡住。", "dev_shm"),
    ("I disabled ACS in the BIOS and it still hangs.", "acs"),
    ("I booted with iommu=pt and it still hangs.", "acs"),
    ("Disabled the IOMMU in the BIOS but no luck, the result is the same.", "acs"),
    ("I upgraded to NCCL 2.21.5, same hang.", "nccl_release"),
    ("Upgrading the driver to 550 did not help, it still hangs.", "driver_release"),
    ("I tried --enforce-eager and it still hangs.", "cuda_graphs"),
    ("加了 --enforce-eager 还是卡住。", "cuda_graphs"),
    ("--disable-custom-all-reduce made no difference.", "custom_ar"),
    ("I tried --disable-custom-all-reduce and vLLM continues to hang.", "custom_ar"),
    ("Someone suggested --disable-custom-all-reduce. Tried that, same hang.", "custom_ar"),
    ("It hangs even with disable_custom_all_reduce=True.", "custom_ar"),
]

# Helped, only planned, asked, advised, heard of, negated, or a release that brought the failure: never "no_help".
PROBE_NOT_NO_HELP = [
    ("With --ipc=host it works.", "dev_shm"),
    ("Should I try --enforce-eager?", "cuda_graphs"),
    ("I will try --shm-size 16g tomorrow.", "dev_shm"),
    ("I read that --enforce-eager fixes it.", "cuda_graphs"),
    ("You could add --ipc=host.", "dev_shm"),
    ("We do not pass --enforce-eager.", "cuda_graphs"),
    ("If I add --shm-size 16g, will it still hang?", "dev_shm"),
    ("Maybe --disable-custom-all-reduce helps?", "custom_ar"),
    ("Even with --enforce-eager the decode speed is fine.", "cuda_graphs"),
    ("Since upgrading the driver to 550 it hangs again.", "driver_release"),  # the regression back
    ("After upgrading NCCL to 2.19 our all-reduce hangs at init.", "nccl_release"),  # a regression, read as such
    ("It hangs unless we set disable_custom_all_reduce=False.", "custom_ar"),  # custom all-reduce on: not the flag
]


@pytest.mark.parametrize("sentence,name", REAL_FIXES)
def test_real_remedy_that_helped_is_a_fix(sentence, name):
    assert (name, "fixes") in remedies(HANG + sentence)
    assert not claims.tried_without_effect(said(HANG + sentence), claims.REMEDIES[name][0])


@pytest.mark.parametrize("sentence,path", PROBE_NO_HELP)
def test_remedy_without_effect_rules_its_cause_out(sentence, path):
    assert claims.tried_without_effect(said(HANG + sentence), path)


@pytest.mark.parametrize("sentence,path", REAL_NOT_NO_HELP + PROBE_NOT_NO_HELP)
def test_helped_planned_or_heard_is_not_without_effect(sentence, path):
    assert not claims.tried_without_effect(said(HANG + sentence), path)


def test_no_luck_reads_for_settings_too():
    # the wider "no effect" reading (claims._NO_LUCK) is the settings' too: one reading for every remedy
    assert claims.tried_without_effect(said(HANG + "Set NCCL_P2P_DISABLE=1 but no luck."), "p2p")
    assert not claims.tried_without_effect(said(HANG + "Set NCCL_P2P_DISABLE=1, the results are not the same."),
                                           "p2p")


def _verdict(tmp_path, body: str) -> str:
    path = tmp_path / "issue.md"
    path.write_text(body)
    return report_json("ticket", str(path))["verdict"]["category"]


DOCKER = ("# vLLM TP=2 hangs in docker\n\nvllm serve with --tensor-parallel-size 2 inside docker hangs during "
          "startup, NCCL reports unhandled system error. ")
DRIVER = ("# vLLM TP=4 hangs since driver update\n\nOur vLLM TP=4 job on 4x A100 hangs at the first all-reduce since "
          "we updated the NVIDIA driver to 550.54. ")
NCCL = ("# Hang after NCCL upgrade\n\nOur TP=4 job on 4x A100 hangs at the first all-reduce after we upgraded "
        "NCCL. ")


@pytest.mark.parametrize("body,before,tried", [
    (DOCKER, "shm_too_small", "I tried --ipc=host, same hang."),  # shm_too_small before this pass
    (NCCL, "nccl_regression", "Downgrading NCCL again made no difference, it still hangs."),  # nccl_regression before
    # already insufficient_data before this pass (a /dev/shm sized in GB is ruled out, ruledout34; the driver's own
    # reading): kept as guards
    (DOCKER, "shm_too_small", "I added --shm-size 16g and it still hangs."),
    (DRIVER, "nccl_regression", "Downgrading the driver to 535 did not help, it still hangs."),
])
def test_lead_steps_back_when_its_remedy_did_not_help(tmp_path, body, before, tried):
    assert (_verdict(tmp_path, body), _verdict(tmp_path, body + tried)) == (before, "insufficient_data")


def test_a_later_release_that_still_fails_keeps_the_regression(tmp_path):
    # moving forward again and failing the same way does not clear the release change: the later one may carry the
    # same regression; only going back to the release before does
    assert _verdict(tmp_path, NCCL + "We upgraded NCCL again, same hang.") == "nccl_regression"


def test_acs_redirect_steps_back_when_acs_off_did_not_help(tmp_path):
    body = ("# NCCL all_reduce hangs on 4x RTX 3090 behind a PLX switch\n\nall_reduce_perf with -g 4 hangs forever at "
            "the first size. ACS is enabled on the PLX bridges (lspci shows ACSCtl SrcValid+ ReqRedir+). ")
    path = tmp_path / "issue.md"
    path.write_text(body + "I disabled ACS in the BIOS and it still hangs.")
    found = {f["rule"]: f for f in report_json("ticket", str(path))["findings"]}
    # the redirect lead goes below the line; the P2P hang itself stays a suspect (a BIOS switch does not always clear
    # ACSCtl on every bridge), so NCCL_P2P_DISABLE=1 remains the test to run
    assert found["ticket.pcie_redirect"]["confidence"] == 0.25
