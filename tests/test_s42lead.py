"""The 36th session's own fixes to how a remedy asked about is read (probes: short sentences testing one reading,
with the near-misses that must not change)."""

import pytest

from diagnose.artifacts import launch
from diagnose.bundle import read_bundle
from diagnose.evidence import NcclSetting
from rules import claims


def _claims(tmp_path, text, kind):
    path = tmp_path / "issue.md"
    path.write_text("Slow TP=2 on 2x RTX 4090 with vLLM. " + text)
    return claims.find(read_bundle([path]), kind)


# A remedy asked about and answered in the same sentence from the reporter's own run was tried: no guess, with the
# answer's effect. Hearsay or an answer that says nothing of the effect keeps it a guess.
@pytest.mark.parametrize("text, effect, guess", [
    ("Does --enforce-eager help? Yes, it works now.", "fixes", False),
    ("Does --enforce-eager help? No, still slow.", "no_help", False),
    ("Does --enforce-eager help? I am on 2 GPUs.", None, True),
    ("Should I add --enforce-eager? Someone said it helps.", None, True),
])
def test_remedy_asked_and_answered(tmp_path, text, effect, guess):
    [remedy] = _claims(tmp_path, text, "remedy")
    assert (remedy.data["effect"], remedy.guess) == (effect, guess)


# "still slow" after a remedy is the slowness staying (no help), not the remedy making it worse; "slower" alone, with
# no "still", stays worse.
@pytest.mark.parametrize("text, effect", [
    ("I added --enforce-eager and it is still very slow.", "no_help"),
    ("I added --enforce-eager and it is still slower than TP=1.", "no_help"),
    ("I added --enforce-eager and it got slower.", "worse"),
    ("I added --enforce-eager and now it works.", "fixes"),
])
def test_still_slow_is_no_help(tmp_path, text, effect):
    [remedy] = _claims(tmp_path, text, "remedy")
    assert remedy.data["effect"] == effect


# The writer asking whether to set something is no setting in use (the NCCL_CROSS_NIC=1 a rule would otherwise take as
# the known regression's trigger); a "why do I need to set" and the writer's own statements run with it.
@pytest.mark.parametrize("line, in_use", [
    ("Should we try NCCL_CROSS_NIC=1? The busbw dropped.", False),
    ("Do I need to set NCCL_P2P_DISABLE=1 on 4090s?", False),
    ("Can we use NCCL_P2P_LEVEL=NVL here?", False),
    ("Why do I need to set NCCL_P2P_DISABLE=1 for it to work?", True),
    ("We do use NCCL_P2P_DISABLE=1 on all nodes.", True),
    ("I can set NCCL_P2P_DISABLE=1 and it works.", True),
])
def test_setting_asked_about_is_not_in_use(line, in_use):
    assert bool([r for r in launch.parse(line, "p") if isinstance(r, NcclSetting)]) is in_use
