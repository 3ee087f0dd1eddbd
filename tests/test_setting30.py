"""A launch setting common to every arm of a comparison is no verdict (session s30, pass setting30, issue 11;
tests/data/setting30/SOURCES.md). Where the reporter says every arm ran one software setup (claims.arms_share_setup:
"All 4 runs same day, same model, same image"), a setting of that setup whose cost each GPU pays alike (eager mode)
costs every arm alike and cannot explain why one arm is slower or faster: rules.engine.shared_setting_context keeps it
as a lead below LEAD_FLOOR. Real near-misses (a shared model with different GPUs, one difference named, "otherwise
identical") make no such claim and keep their verdicts."""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

import rules.engine as engine
from rules import claims

DATA = Path(__file__).parent / "data"
SPARK = DATA / "ut26c" / "spark_tp2_vs_2solo.md"  # forums.developer.nvidia.com/t/.../364926
NEAR_MISSES = {
    "ut27e/lmstudio1608.md": "expected_physics",  # lmstudio-ai/lmstudio-bug-tracker#1608
    "w3c_s24/p40_mtp29.md": "insufficient_data",  # sudoingX/qwen38-mtp#29 (settled healthy; p2pline36: no refusal)
    "ut24/besthub_nvlink.md": "insufficient_data",  # besthub.dev, NVLink on one arm only
}


def test_spark_states_one_setup_for_every_arm():
    c = claims.arms_share_setup(said(SPARK.read_text()))
    assert c is not None and "All 4 runs same day" in c.quote


@pytest.mark.parametrize("sentence", [
    # lmstudio-bug-tracker#1608: the arms differ in GPUs, the model is no software setup
    "Afterwards, I see my tok/sec speed is 40 tok/sec. Both configurations were loading the same model.",
    # qwen38-mtp#29: the one difference named
    "Paired A/B on the same box, same GGUF (unsloth UD-Q5_K_XL), same serve config, only the spec flags changing "
    "— both arms at `--parallel 1`, medians of 3 runs x 3 prompts",
    # besthub.dev NVLink article: "otherwise" names a difference elsewhere
    "both setups used dual 3090 GPUs with otherwise identical hardware, yet the cloud setup showed several-fold "
    "higher latency",
    # tensorrtx paraphrase c003: a picture, and a difference named
    "Hello, I infer the same one image many times but the time of every run is very unstable",
])
def test_near_misses_make_no_shared_setup_claim(sentence):
    assert claims.arms_share_setup(said(sentence)) is None


def test_a_question_about_the_setup_is_no_claim():
    # the spark post's sentence, asked
    assert claims.arms_share_setup(said("Were all 4 runs on the same image?")) is None


def test_spark_before_and_after(monkeypatch):
    # (pairs36) the set is now read: TP=2 ahead of two solo engines is physics (the settled answer), and eager mode,
    # which costs the TP side most, is a lead below the line whether or not the shared-setup guard runs
    after = report_json("ticket", SPARK)
    assert after["verdict"]["category"] == "expected_physics"
    lead = finding(after, "ticket.eager_flag")
    assert lead["severity"] == "info" and lead["confidence"] < engine.LEAD_FLOOR
    monkeypatch.setattr(engine, "shared_setting_context", lambda facts, findings: findings)
    before = report_json("ticket", SPARK)
    assert before["verdict"]["category"] == "expected_physics"


@pytest.mark.parametrize("name,category", sorted(NEAR_MISSES.items()))
def test_near_miss_verdicts_unchanged(name, category, monkeypatch):
    after = report_json("ticket", DATA / name)["verdict"]["category"]
    monkeypatch.setattr(engine, "shared_setting_context", lambda facts, findings: findings)
    assert after == report_json("ticket", DATA / name)["verdict"]["category"] == category


def test_a_cost_between_gpus_is_kept():
    """P2P off costs a tensor-parallel arm and not a one-GPU arm: a shared setting of that kind may be the difference
    (gap_costs.toml between_gpus), so it is no SOFTWARE_SETTINGS entry the guard may quiet."""
    from rules import catalog

    assert not set(engine.SOFTWARE_SETTINGS) & catalog.gap_costs_between_gpus()
    assert "p2p_disabled" in catalog.gap_costs_between_gpus()


# --------------------------------------------------------------------------- another person's rig in a comparison

CLUB = DATA / "ut19" / "club3090_833.md"  # noonghunna/club-3090#833


@pytest.mark.parametrize("line", [
    "# Dual 5090 vs Dual 3090 — Quality & Performance Comparison",  # noonghunna/club-3090#833's heading
    "GPU: 8x NVIDIA B200 180 GB vs 8x NVIDIA H200 141 GB",  # NVIDIA/TensorRT-LLM#5929 (tests/data/ut15)
])
def test_two_rigs_of_one_board_each_are_compared(line):
    from diagnose.artifacts.issue_md import _rigs_compared

    assert _rigs_compared(line)


@pytest.mark.parametrize("line", [
    # one rig of mixed boards, or one side not counted: no two homogeneous rigs
    "2x RTX 3090 + 2x 4090 vs expected",
    "2x 3090 and 2x 4090 vs 4x A100",
    "I have a 3090 and a 4090, the 4090 is faster than the 3090",
    # tests/data/ut27e/lmstudio1608.md (lmstudio-bug-tracker#1608): a 5090, then a 5090 and a 3080 in one box
    "I noticed the token generation with the 5090 was about 55 tok/sec, before I added the 3080.",
])
def test_mixed_rigs_are_not_two_rigs(line):
    from diagnose.artifacts.issue_md import _rigs_compared

    assert not _rigs_compared(line)


def test_club3090_833_another_users_rig_is_no_mixed_job(monkeypatch):
    """Before: straggler 0.69 from ticket.mixed_gpus (the other user's 3090 rig read as this job's); after: no mixed
    GPUs, insufficient_data (the thread settles: not PCIe or P2P)."""
    import diagnose.artifacts.issue_md as issue_md

    after = report_json("ticket", CLUB)
    assert finding(after, "ticket.mixed_gpus") is None and after["verdict"]["category"] != "straggler"
    monkeypatch.setattr(issue_md, "_rigs_compared", lambda ln: False)
    before = report_json("ticket", CLUB)
    assert before["verdict"]["category"] == "straggler"


def test_a_real_mixed_rig_keeps_its_mixed_gpus():
    # sudoingX/qwen38-mtp#65 (tests/data/ut28b): an RTX 2070 and an RTX 5060 Ti in one job
    assert finding(report_json("ticket", DATA / "ut28b" / "x1riser65.md"), "ticket.mixed_gpus") is not None
