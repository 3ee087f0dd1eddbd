"""A failing release of the engine named right after the engine's own name, beside a release said to work (issue 11,
nccl43). release_works finds the release said to work; works_vs_failing looks for the engine's other release named
beside a failure. _OTHER_PRODUCT lists the engines too (an engine's release beside NCCL's is another product's), so
the engine's own failing release ("vllm 0.7.0", "vllm 0.22.0") was dropped as another product's, and "when using
v0.22" was no place a release is named in. Real sentences (their addresses beside them), probes (marked) with
another engine, hearsay and a release that works too; then the first posts of tests/data/nccl43 (SOURCES.md), each
judged before this change."""

from pathlib import Path

import pytest
from conftest import judged_issue

from rules import claims

DATA = Path(__file__).parent / "data" / "nccl43"


@pytest.mark.parametrize("text, failing, good", [
    # https://github.com/vllm-project/vllm/issues/12515 (title)
    ("Error After Model Load in vllm 0.7.0 (No Issue in vllm 0.6.6)", "0.7.0", "0.6.6"),
    # https://github.com/vllm-project/vllm/issues/45021 (first post, tests/data/nccl43/vllm45021.md)
    ("It works fine with the vLLM 0.19 image, but I get the following error when using v0.22. The only change made "
     "was upgrading the image; all other configurations remain exactly the same.", "0.22", "0.19"),
    # probe: each release after the engine's name, in its own sentence
    ("Probe: vLLM 0.19 works fine. vLLM 0.22 hangs at startup with TP=2.", "0.22", "0.19"),
])
def test_the_engines_own_failing_release_is_the_other_side(text, failing, good):
    works = claims.release_works(text)
    assert works and works[1] == good
    ab = claims.works_vs_failing(text, works)
    assert ab and ab[1] == [failing, good]


@pytest.mark.parametrize("text", [
    "Probe: SGLang 0.3.2 works fine, but vLLM 0.6.3 hangs with TP=2.",  # another engine's release: no A/B of one
    "Probe: I read that vLLM 0.19 works fine, maybe vLLM 0.22 hangs?",  # hearsay and a guess
    "Probe: vLLM 0.19 works fine and vLLM 0.22 works fine too.",  # nothing fails
    "Probe: vLLM 0.19 works fine; I did not try v0.22 yet.",  # nothing fails on the other release
])
def test_no_ab_without_the_same_engine_failing(text):
    assert claims.works_vs_failing(text, claims.release_works(text)) is None


def test_a_release_written_after_using_is_named():
    def named(text):
        return [r for r in claims._ENGINE_RELEASE_NAMED.search(text).groups() if r]

    assert named("it hangs when using v0.22") == ["0.22"]
    assert named("using version 0.6.2 it fails") == ["0.6.2"]
    assert not claims._ENGINE_RELEASE_NAMED.search("using 2 GPUs")  # a count, no release


def test_vllm45021_reads_the_two_releases():
    verdict, found = judged_issue((DATA / "vllm45021.md").read_text())
    assert "ticket.engine_versions" in found
    assert verdict.category == "other"  # the project's answer for two releases of the engine compared


def test_deepspeed3932_not_p2p():
    """The reporter's A/B is between models at the same mp_size (gpt2 right, LLaMA wrong): corrupted P2P would spoil
    both; settled by upgrading DeepSpeed. Read since b51a (claims.right_on_same_gpus, ticket.wrong_output_software)."""
    verdict, _ = judged_issue((DATA / "deepspeed3932.md").read_text())
    assert verdict.category == "other"


@pytest.mark.xfail(strict=True, reason="the container's libnccl (2.15.5) is not the one PyTorch runs (2.19.3, "
                   "linked statically, NVIDIA/nccl#1171): no reading of a package NCCL against torch's own yet")
def test_pytorch122571_not_insufficient():
    verdict, _ = judged_issue((DATA / "pytorch122571.md").read_text())
    assert verdict.category == "other"
