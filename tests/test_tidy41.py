"""tidy41: one helper for "the reporter's own words" (claims.own_words / own_texts), and the other tidy-ups of the
pass (issue_md's BATCH pattern linear on long blank runs). Real bundles are pastes under tests/data (their URLs in
each folder's SOURCES.md); short strings are probes."""
import math
import shutil
import time
from pathlib import Path

import pytest
from conftest import said

from diagnose.artifacts import issue_md
from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note, Workload
from rules import claims

DATA = Path(__file__).parent / "data"


def _paste(tmp_path, rel: str) -> Facts:
    dst = tmp_path / "issue.md"
    shutil.copy(DATA / rel, dst)
    return read_bundle([dst])


@pytest.mark.parametrize("rel", ["hostbound37/vllmforum1876.md", "hostbound37/llamacpp24871.md"])
def test_an_issues_prose_is_own_words_and_a_parsed_framework_is_not(tmp_path, rel):
    sources = [(str(s), claims.own_words(s)) for s, _ in claims.texts(_paste(tmp_path, rel))]
    assert ("issue.md:1", True) in sources
    assert any(s.endswith("(framework)") and not own for s, own in sources)
    assert all(own == (not s.endswith(")")) for s, own in sources)


def test_a_ticket_tomls_description_is_own_words_and_its_tables_are_not():
    facts = read_bundle([DATA / "para37/u316-nccltests-a100-nvlink3-235-vs-300-or-600/a"])
    own = {str(s): claims.own_words(s) for s, _ in claims.texts(facts)}
    assert own == {"ticket.toml:2": True, "ticket.toml:13 (software)": False, "ticket.toml:8 (interconnect)": False,
                   "ticket.toml:13 (framework)": False}
    assert [str(s) for s, _ in claims.own_texts(facts)] == ["ticket.toml:2"]


def test_own_texts_keeps_the_prose_and_drops_every_field():
    facts = Facts()  # probe
    facts.add(Note("issue.md:1", "description", "we see 3 GB/s between the two cards"),
              Note("issue.md:30", "software", "nccl-tests 2.13.8"),
              Workload("issue.md:12", framework="vllm", interconnect="PCIe"))
    assert [(str(s), t) for s, t in claims.own_texts(facts)] == [("issue.md:1", "we see 3 GB/s between the two cards")]


# Real lines (the first two from the threads physics40 cites beside _CJK_EDGE, modelscope/ms-swift#1825 and
# deepseek-ai/DeepSeek-V2#35) and probes: the separator's blanks now belong to it; what is read is unchanged.
@pytest.mark.parametrize("text, batch", [
    ("单卡batchsize为8", "8"), ("batch_size为1024", "1024"), ("batch size 为8", "8"), ("--batch-size   32", "32"),
    ("batch of  16 prompts", "16"), ("batch size: \t 4", "4"), ("batch 8 tokens", None), ("max-batch-size 32", None),
    ("batch   ", None)])
def test_the_batch_patterns_read_as_before(text, batch):
    for pattern in (issue_md.BATCH, issue_md.BATCH_ONLY):
        m = pattern.search(text)
        assert (m.group(1) if m else None) == batch


@pytest.mark.parametrize("pattern, words", [("BATCH", "batch size"), ("BATCH_ONLY", "batch size"),
                                            ("ONE_AT_A_TIME", "batch size"), ("ONE_AT_A_TIME", "requests"),
                                            ("ONE_AT_A_TIME", "requests were")])
@pytest.mark.parametrize("blanks", [" ", "\t", "\n"])
def test_a_long_blank_run_after_the_words_is_linear(pattern, words, blanks):
    """Probe: 50,000 blanks after "batch size" or "requests" took 20-40 s before (quadratic); now milliseconds."""
    text = words + blanks * 50_000 + "x"
    start = time.perf_counter()
    assert getattr(issue_md, pattern).search(text) is None
    assert time.perf_counter() - start < 0.5


# One reading of "supposed or guessed" (claims._supposed_at) for a setting's advice and a remedy's guess. The first
# sentence is real (vllm-project/vllm#17167's title, also in test_tried40); the rest are probes.
@pytest.mark.parametrize("text, guess, effect", [
    ("VLLM will hang during multiple node startup, but if ‘--enforce-eager’ configuration is enabled, it can start "
     "normally.", True, "fixes"),
    ("Maybe --enforce-eager helps?", True, "fixes"),
    ("Perhaps --disable-custom-all-reduce would fix it.", True, "fixes"),
    ("I added --ipc=host and it still hangs.", False, "no_help"),
    ("You could try --ipc=host. I did and it still hangs.", False, "no_help"),
])
def test_a_remedy_supposed_is_a_guess_unless_answered(text, guess, effect):
    (c,) = claims.find(said("Our job hangs at the first all-reduce. " + text), "remedy")
    assert (c.guess, c.data["effect"]) == (guess, effect)


# rules.loss_bound prices thousands of catalog pairs and reads only the decode step: predict(decode_only=True) gives
# the same step, band and fit without the prefill, TTFT and end-to-end figures (NaN), as predict_any_build passes it on.
@pytest.mark.parametrize("model, gpu, engine, tp, pp, interconnect", [
    ("opt-125m", "h200-nvl", "vllm", 2, 1, "pcie5-x8"), ("qwen3-0.6b", "gb200", "llamacpp", 1, 2, None),
    ("llama-2-13b", "rtx-3090", "sglang", 2, 1, None), ("yi-1.5-9b", "a100-80gb-sxm", "generic", 4, 1, None),
    ("llama-3-8b", "l4", None, 1, 1, None)])
def test_a_decode_only_prediction_prices_the_same_step(model, gpu, engine, tp, pp, interconnect):
    from rules import catalog, roofline

    args = (catalog.model(model), catalog.gpu(gpu), roofline.Layout(tp=tp, pp=pp))
    kw = {"engine": catalog.engine(engine) if engine else None, "build_stated": False, "interconnect": interconnect}
    full, step = roofline.predict_any_build(*args, **kw), roofline.predict_any_build(*args, decode_only=True, **kw)
    for name in ("decode_step_ms_expected", "band_low", "band_high", "valid", "fits", "decode_step_ms"):
        assert getattr(step, name) == getattr(full, name), name
    assert full.ttft_ms_expected > 0 and math.isnan(step.ttft_ms_expected) and math.isnan(step.e2e_latency_ms_expected)
