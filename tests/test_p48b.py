"""Audit of the `other` answers taken from a release comparison or a bare software error (pass p48b). The table of
every kept paste decided by ticket.engine_versions, ticket.software_error and ticket.loss_beyond_physics, and of 30
decided by ticket.known_error, is in tests/data/p48b/AUDIT.md.

No misreading was found in three separate threads, so no reading changed. What stays pinned here: the verdicts that
are right by their thread keep `other` from the same rule, the one wrong-looking answer that is the store's cut line
(rayipc_2) turns with the line whole, and the wrong ones (one thread each, candidates) are strict xfails that say why.
"""

import shutil
from pathlib import Path

import pytest
from conftest import REPO, judged_issue

from diagnose.bundle import read_bundle
from rules import claims

DATA = REPO / "tests" / "data"


def _judged(tmp_path: Path, rel: str, text: str | None = None):
    """(verdict, {rule id: finding}) of `diagnose ticket` on the kept paste tests/data/<rel> (or on `text`, a probe
    of it), as a bundle's issue.md."""
    folder = tmp_path / Path(rel).stem
    folder.mkdir()
    if text is None:
        shutil.copy(DATA / rel, folder / "issue.md")
    else:
        (folder / "issue.md").write_text(text)
    return judged_issue(folder=folder)


def _releases_compared(tmp_path: Path, rel: str) -> list:
    """The engine_versions_compared claims read from the kept paste."""
    shutil.copy(DATA / rel, tmp_path / "issue.md")
    return claims.find(read_bundle([tmp_path / "issue.md"]), "engine_versions_compared")


@pytest.mark.parametrize("rel, rule", [
    # the reporter's own A/B of two releases, a bisect or a PR, settled as the engine's change (AUDIT.md)
    ("nccl43/vllm45021.md", "ticket.engine_versions"),      # "The only change made was upgrading the image"
    ("ut20b/ollama11986.md", "ticket.engine_versions"),     # split over GPUs since 0.11.5 (labelled bug)
    ("ut14e/vllm5637.md", "ticket.engine_versions"),        # "Reverting back to version v0.4.3 resolves the issue"
    ("ut14e/vllm8397.md", "ticket.engine_versions"),        # "Rolling back to v0.6.0 resolves the issue"
    ("ut20b/llamacpp5324.md", "ticket.engine_versions"),    # "regression After #4606"
    ("ut21b/vllm42186.md", "ticket.engine_versions"),       # bisected to flashinfer 0.6.7 -> 0.6.8.post1
    ("ut21b/llamacpp6814.md", "ticket.engine_versions"),    # b1842 vs b1843, outranking the layer-split pace
    ("ut22b/ollama6479.md", "ticket.engine_versions"),      # 0.3.7-rc5 no longer splits; the CPU share a lead
    ("review50/vllm4852.md", "ticket.engine_versions"),     # TPOT slower than v0.4.0.post1
    ("startup34/sglang7339.md", "ticket.engine_versions"),  # FlashInfer's JIT came with the release
    # an engine's or framework's own error, settled as software
    ("cjk44/gitcode_lmdeploy_minicpm_devices.md", "ticket.software_error"),  # the vision part's TP bug
    ("ut22b/tabbyapi363.md", "ticket.software_error"),      # TP not implemented for the architecture
    ("ut26e/trtllm1035.md", "ticket.software_error"),       # an assertion gone in main
    ("ut27d/ds5539.md", "ticket.software_error"),           # ZeRO-3 parameters not gathered
    ("dup39/worldsize_5.md", "ticket.software_error"),      # an MP=2 checkpoint at world size 1
    # a loss physics cannot explain
    ("ut12x/llamacpppython1026.md", "ticket.loss_beyond_physics"),  # 30-60x slower on two A100s than on one
    # a message the catalog knows
    ("decided31/pytorch40273.md", "ticket.known_error"),    # NCCL cannot find the GPU's PCI path in sysfs
    ("ut24/vllm9774.md", "ticket.known_error"),             # custom all-reduce IPC, bisected to one commit
    ("ut26b/nccl769.md", "ticket.known_error"),             # ibv_modify_qp timeout: a link-local GID
    ("ut28g/torchgeo1198.md", "ticket.known_error"),        # no NCCL on Windows
    ("ut23b/msswift10183.md", "ticket.known_error"),        # ranks' collective shapes differ
    ("review50/bloom32.md", "ticket.known_error"),          # a rank died at the OOM, the others wait
])
def test_right_other_verdicts_keep_theirs(tmp_path, rel, rule):
    verdict, found = _judged(tmp_path, rel)
    assert verdict.category == "other"
    assert found[rule].category == "other"


def test_rayipc_2_is_other_only_because_its_p2p_line_is_cut(tmp_path):
    """ray-project/ray#17909 (settled p2p_disabled) is stored with NCCL's P2P warning cut at "failed to ope"; whole,
    as ray_lightning#24 (dup39/rayipc_1.md, the same set) prints it, the peer-access refusal decides."""
    rel = "dup39/rayipc_2.md"
    cut = "transport/p2p.cc:238 NCCL WARN failed to ope"
    whole = next(line.split("] ", 1)[1] for line in (DATA / "dup39" / "rayipc_1.md").read_text().splitlines()
                 if "p2p.cc:238 NCCL WARN failed to open CUDA IPC handle" in line)
    text = (DATA / rel).read_text()
    assert cut in text and whole.startswith(cut)
    assert _judged(tmp_path, rel)[0].category == "other"
    (tmp_path / "whole").mkdir()
    assert _judged(tmp_path / "whole", rel, text.replace(cut, whole))[0].category == "p2p_disabled"


# --------------------------------------------------------------------------- wrong, one thread each (candidates)

@pytest.mark.xfail(strict=True, reason="candidate (one thread): Langchain-Chatchat's startup dump "
                   "'python版本：3.11.7 / 项目版本：v0.2.10 / langchain版本：0.0.354' is read as releases "
                   "compared ('版本' a change word, the clocks' '下降' a change worded); the CJK label "
                   "'X版本：' is not read as another product's")
def test_chatchat3764_names_no_release_change(tmp_path):
    assert not _releases_compared(tmp_path, "ut16/chatchat3764.md")


@pytest.mark.xfail(strict=True, reason="candidate (one thread): vLLM's template heading 'Report of performance "
                   "regression' is taken as the reporter's change word; the post asks about FP8's gain over BF16, "
                   "measured on both releases")
def test_vllm25915_names_no_release_change(tmp_path):
    assert not _releases_compared(tmp_path, "extract32/vllm25915.md")


@pytest.mark.xfail(strict=True, reason="candidate (one thread): the error taken is the env-collection script's own "
                   "traceback, and 'attention heads are multiples of 2' on '3 gpu's' is read by no heads reading "
                   "(dphnAI/sonar#426, answered by asymmetric TP)")
def test_sonar426_is_heads_not_dividing(tmp_path):
    assert _judged(tmp_path, "ut22c/sonar426.md")[0].category == "tp_not_dividing_heads"
