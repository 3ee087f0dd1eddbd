"""The one sentence splitter (diagnose/artifacts/text.py): where a sentence of prose ends and where it does not.
Sentences marked "probe" are written here to test a bound; the others are quoted from the real pastes named (under
tests/data: ut27c/nccl1240.md, symptom34/oicr_10.md, bydesign35/ethminer283.md, ut19/nccl2409.md,
extract32/purplellama23.md, extract35b/mooncake522.md, para38/h009-vllm-cpu-upgrade-3x-speedup-3090/b.md,
symptom34/flashinfer_2923.md, ut27f/nsighttraining4.md, variant39/powerinfer16.md)."""

import pytest

from diagnose.artifacts import text as t


@pytest.mark.parametrize("line, want", [
    # ". " "! " "? " end an English sentence (probe)
    ("It hangs. Then it fails! Why? No idea", ["It hangs.", "Then it fails!", "Why?", "No idea"]),
    # the mark at the text's end
    ("It hangs.", ["It hangs."]),
    # trailing space is no sentence of its own (probe)
    ("It hangs.  ", ["It hangs."]),
])
def test_english_ends(line, want):
    assert t.sentences(line) == want


@pytest.mark.parametrize("line", [
    "Upgrading to vLLM 0.6.3 with NCCL v2.18.1 did not help",  # versions (probe)
    "TP=2 is 1.5x faster at 3.2 GB/s",  # decimals (probe)
    "I edited config.json and preloaded libnccl.so.2 before the run",  # file names (probe)
    "see https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html for the settings",  # a URL (probe)
    # abbreviations that lead into more of their sentence
    # ut27c/nccl1240.md
    "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.",
    "# Check failed: result == ncclSuccess (2 vs. 0) unhandled system error",  # oicr_10.md
    "i.e. does CUDA4 in ethminer always equal GPU 4 in nvidia-smi?",  # ethminer283.md
    "we would expect ~470 GB/s busbw for AllReduce (cf. nccl-tests #309 results).",  # nccl2409.md
    "if there was any tricks etc. do increase the speed",  # purplellama23.md
])
def test_no_end_inside(line):
    assert t.sentences(line) == [line]


def test_etc_before_a_capital_ends():
    assert t.sentences("I tried P2P, SHM etc. Nothing helped.") == ["I tried P2P, SHM etc.", "Nothing helped."]  # probe


@pytest.mark.parametrize("line, want", [
    # CJK 。！？ end a sentence with no space after them (probe; mooncake522.md's title glues the 。)
    ("卡住了。然后？再试！好", ["卡住了。", "然后？", "再试！", "好"]),
    ("thousands of requests。I used two machines", ["thousands of requests。", "I used two machines"]),
    # an ASCII mark glued to a CJK character ends one too (probe); a decimal before one does not
    ("卡住了?然后重启", ["卡住了?", "然后重启"]),
    ("agent 场景下 vLLM 提速 3.8 倍。", ["agent 场景下 vLLM 提速 3.8 倍。"]),  # h009 .../b.md
])
def test_cjk_ends(line, want):
    assert t.sentences(line) == want


def test_newline_ends_a_line_of_prose():
    # readers that split per line (issue_md) never see one; the others take a line's end as a sentence's (probe)
    assert t.sentences("line one\nline two") == ["line one", "line two"]
    text = "We run vLLM\nbut not TGI"
    assert t.sentence_before(text, text.index("TGI")) == "but not "


def test_semicolon_only_where_asked():
    assert t.sentences("set it; it hangs") == ["set it; it hangs"]  # probe
    assert t.sentences("set it; it hangs", semicolon=True) == ["set it;", "it hangs"]
    assert t.sentences("a;b", semicolon=True) == ["a;b"]  # no space after: no end


def test_start_and_end_of_the_sentence_holding_a_position():
    text = "NCCL 2.18.1 works. With 2.19.3 it hangs! Why?"  # probe
    at = text.index("hangs")
    assert text[t.sentence_start(text, at):t.sentence_end(text, at)] == "With 2.19.3 it hangs!"
    assert t.sentence_before(text, at) == "With 2.19.3 it "
    assert t.sentence_end(text, text.index("Why")) == len(text)
    assert t.sentence_start(text, 0) == 0


def test_span_bounds_the_read_back():
    text = "x" * 50 + " it hangs"  # a long run with no end (probe)
    at = text.index("hangs")
    assert t.sentence_start(text, at, 10) == at - 10
    assert t.sentence_start(text, at) == 0
    assert t.sentence_start("ok. it hangs", 9, 100) == 4  # an end nearer than the span wins
    assert t.sentence_end(text, 0, 20) == 20


def test_clause_before():
    text = "为了防止出现NCCL挂起问题，设置了变量。之后又卡住"  # probe
    assert t.clause_before(text, text.index("挂起")) == "为了防止出现NCCL"
    assert t.clause_before(text, text.index("卡住")) == "之后又"
    assert t.clause_before("a, b: c; d，e", 12) == "e"


def test_a_question_and_its_answer_together_where_asked():
    # claims' settings and remedies read the answer after a question in one sentence (probe)
    text = "Does NCCL_P2P_DISABLE=1 help? No, it still hangs. Next"
    at = text.index("NCCL")
    assert text[t.sentence_start(text, at):t.sentence_end(text, at)] == "Does NCCL_P2P_DISABLE=1 help?"
    assert text[t.sentence_start(text, at, questions=False):t.sentence_end(text, at, questions=False)] == \
        "Does NCCL_P2P_DISABLE=1 help? No, it still hangs."


# A reading the wider sentence exposed: claims._CAUSE_SWITCHED took "driver" anywhere in a P2P-off sentence for a
# switchable cause; cut at the dots of "580.178.04" the sentence of w3c_s24/p40_mtp29.md (sudoingX/qwen38-mtp#29,
# settled healthy) never held it. The driver named by its version is the installed release (nvidia-smi's header,
# "Driver Version: 535.104.05"), no cause.
@pytest.mark.parametrize("sentence, cause", [
    ("RTX 3090 24GB, driver 535.183.01, power limit **350 W**", False),  # phys25/threads/syvai-qwen38-3090-3
    ("2× DGX Spark (GB10, 128 GB unified), Ubuntu 24.04, driver 580.173.02, CUDA 13.0", False),  # review50/sparks3
    ("ubuntu 20.04 LTS with CUDA 11.4 Driver 450.102.04 NCCL 2.10.3", False),  # para38/n028-.../b.md
    ("Driver Version: 535.104.05", False),  # nvidia-smi's header
    ("P2P disabled by the driver", True),  # probe: the driver as the cause
    ("the driver disables P2P across sockets", True),  # probe
    ("P2P is off because of the driver, not the BIOS", True),  # probe: a negation beside it keeps the cause word
])
def test_driver_named_by_its_version_is_no_cause(sentence, cause):
    from rules.claims import _CAUSE_SWITCHED
    assert bool(_CAUSE_SWITCHED.search(sentence)) is cause


# ---- next_sentence: where the sentence after a position's starts, where that one ends at one of the marks asked for
# (launch._adopted reads the sentence after a setting's, where the setting's ends with "." or "!" within 40 characters)

def test_next_sentence_after_a_setting():
    # symptom34/flashinfer_2923.md (flashinfer-ai/flashinfer#2923)
    text = ("Switching to `trtllm_allreduce_fusion` with `VLLM_FLASHINFER_ALLREDUCE_BACKEND=trtllm` will resolve the "
            "issue. I am not able to build a standalone example to reproduce it")
    end = text.index("=trtllm") + len("=trtllm")
    assert t.next_sentence(text, end, 41, marks=".!") == text.index("I am not")
    assert t.next_sentence(text, end, 20, marks=".!") is None  # its end lies past the span


@pytest.mark.parametrize("text, nxt", [
    # a version's dots end nothing: the sentence's own period does (probe; the old launch._FIRST_STOP stopped at the
    # first dot and read no next sentence)
    ("You can set NCCL_P2P_DISABLE=1 on vLLM 0.6.3. We run with it now.", "We run"),
    # the mark inside closing quotes (probe)
    ('The docs say "set NCCL_P2P_DISABLE=1." We run with it now.', "We run"),
    # a question, or a line's end, ends the sentence with no next one read where only "." and "!" are asked (probes)
    ("Did you set NCCL_P2P_DISABLE=1? We run with it now.", None),
    ("You can set NCCL_P2P_DISABLE=1\nWe run with it now.", None),
])
def test_next_sentence_marks(text, nxt):
    end = text.index("=1") + 2
    got = t.next_sentence(text, end, 41, marks=".!")
    assert (None if got is None else text[got:got + len(nxt)]) == nxt
    if "?" in text:  # with the default marks a question ends it too
        assert text[t.next_sentence(text, end):].startswith("We run")


# ---- hearsay.advised: the sentence before a failure word, read back at most SENTENCE_SPAN characters

def test_advice_reads_the_failure_words_sentence():
    from rules import hearsay
    # ut27f/nsighttraining4.md (Nsight Compute's warning, quoted in the paste)
    text = ("==WARNING== Launching the workload is taking more time than expected. If this continues to hang, "
            "terminate the profile and re-try by profiling the range of all related launches")
    at = text.index("hang")
    assert t.sentence_before(text, at, hearsay.SENTENCE_SPAN) == "If this continues to "
    assert hearsay.advised(text, at, at + len("hang"))
    # a glued CJK full stop ends the sentence before (probe; the old bound wanted a space after it)
    text = "模型加载完成。如果卡住，就设置 NCCL_P2P_DISABLE=1"
    assert t.sentence_before(text, text.index("卡住"), hearsay.SENTENCE_SPAN) == "如果"
    assert hearsay.advised(text, text.index("卡住"), text.index("卡住") + 2)
    # the read-back stops at the span in a long run with no end (probe)
    text = "停滞" * 400 + " if it hangs, set NCCL_P2P_DISABLE=1"
    assert len(t.sentence_before(text, text.index("hangs"), hearsay.SENTENCE_SPAN)) == hearsay.SENTENCE_SPAN


# ---- board_variant.said: each sentence of the prose read for the board variant it states or asks about

def test_variant_sentences():
    # variant39/powerinfer16.md (Tiiny-AI/PowerInfer#16): the question is a sentence of its own
    text = ("Thanks for the great work!\nJust curious, in \"Evaluation shows that PowerInfer attains ...\"\n"
            "Are you guys talking about the 40GB version of A100 or the 80GB version?")
    assert t.sentences(text)[-1] == "Are you guys talking about the 40GB version of A100 or the 80GB version?"
    assert t.sentences(text)[0] == "Thanks for the great work!"
    # a quoted sentence ends after its closing quote (probe)
    assert t.sentences('He said "we run the PCIe version." Ours are SXM.') == \
        ['He said "we run the PCIe version."', "Ours are SXM."]


# ---- claims._answered_advice: the sentence after the advice's (a line's end ends one too), read for the reporter
# doing as advised

@pytest.mark.parametrize("text, answer", [
    # symptom34/flashinfer_2923.md: the next sentence found, and it answers nothing
    ("Switching to `trtllm_allreduce_fusion` with `VLLM_FLASHINFER_ALLREDUCE_BACKEND=trtllm` will resolve the "
     "issue. I am not able to build a standalone example to reproduce it", None),
    # an address's dots end nothing (probe; the old bound stopped at "10." and read "0")
    ("Set VLLM_HOST_IP=10.0.0.1 on each node. I did and it still hangs.", "I did and it still hangs"),
    ("Try NCCL_P2P_DISABLE=1! I did and it still hangs.", "I did and it still hangs"),  # "!" ends one (probe)
    ("Try NCCL_P2P_DISABLE=1\nTried that, same hang.", "Tried that, same hang"),  # a line's end (probe)
    ("Try NCCL_P2P_DISABLE=1 (see config.json). I did not try it yet.", None),  # near-miss: not done (probe)
])
def test_answered_advice_reads_the_next_sentence(text, answer):
    from rules.claims import _answered_advice
    pos = text.index("=") - 4
    assert _answered_advice(text, pos) == answer
    if answer is None and "I am" in text:
        assert text[t.next_sentence(text, pos, marks=".!?。！？\n"):].startswith("I am not able")
