"""Paraphrase audit, sixth pass (issue 11, session 24): the weakest verdict families on unseen cases, expected_physics
(the "is this normal?" TP scaling question), nccl_regression (a release change behind the slowdown),
tp_not_dividing_heads and p2p_disabled.

tests/data/paraphrases_24/<label>.toml holds real sentences from public threads that are no corpus case, each with its
URL, in the form of ../paraphrases_23: `fact`, what the ticket path should give on the sentence alone, or `not`, what a
near-miss (advice, a guide, a change that lifts a limit, two engines compared, a template) must not give; `xfail` the
reason a case still fails (strict). A fact is `claim=<kind>` (a rules.claims claim the reporter affirms, neither a guess
nor ruled out), `release_change` (any release-change claim affirmed), `finding=<rule>` or `verdict=<category>` (the
ticket verdict). The whole-ticket cases below add the model, GPU and layout facts of each sentence's thread."""

from pathlib import Path

import pytest
import tomllib
from test_paraphrases_21 import assert_case_read, assert_families_kept, family_cases
from test_paraphrases_22 import test_no_sentence_is_a_corpus_case as _corpus_check
from test_paraphrases_23 import RELEASE_CLAIMS
from test_u11o_peer_copy_and_fit import issue, judged

from rules import claims

DATA = Path(__file__).parent / "data" / "paraphrases_24"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _said(text: str) -> set[str]:
    facts = issue(text)
    found = claims.claims(facts) + claims.torch_releases_compared(facts) + claims.more_gpus_no_gain(facts)
    stated = [c for c in found if not (c.guess or c.negated)]
    out = {f"claim={c.kind}" for c in stated}
    out |= {"release_change" for c in stated if c.kind in RELEASE_CLAIMS}
    verdict, rules = judged(facts)
    return out | {f"finding={rule}" for rule in rules} | {f"verdict={verdict.category}"}


@pytest.mark.parametrize("case", family_cases(FAMILIES))
def test_a_real_sentence_gives_its_facts(case):
    assert_case_read(case, _said)


def test_every_sentence_has_its_source_and_each_family_its_near_misses():
    assert set(FAMILIES) == {"expected_physics", "nccl_regression", "tp_not_dividing_heads", "p2p_disabled"}
    assert_families_kept(FAMILIES)


def test_no_sentence_is_a_corpus_case(monkeypatch):
    import test_paraphrases_22

    monkeypatch.setattr(test_paraphrases_22, "FAMILIES", FAMILIES)
    _corpus_check()


# Whole tickets: one real sentence of each thread above with the model, GPU and layout facts its thread gives (the
# lines around the sentence are the thread's facts written as a reporter lists them), and the verdict an expert gives.
TICKETS = [
    # hpcaitech/ColossalAI#116: GPT-2 XL (25 heads) under tensor parallelism of 4, the maintainer's diagnosis
    ("GPT2-XL test case fails with tensor parallel size 4",
     "Model: gpt2-xl, tensor parallel size 4\n\nHi. The problem is supposed to be that the number of "
     "attention heads of GPT-XL is 25, which cannot be divided by the tensor parallel size 4.",
     "tp_not_dividing_heads"),
    # PaddlePaddle/FastDeploy#4588: two RTX 4090 (24 GB), the custom all-reduce refused peer access at start-up
    ("4090 2卡 运行Benchmark的启动服务报`不支持对等访问`错误",
     "GPU: RTX 4090（24GB 显存，2 张）\n\n我在linux中docker源码编译完成后，运行Benchmark的启动服务：\n"
     "  File \"/usr/local/lib/python3.10/dist-packages/fastdeploy/distributed/communication.py\", line 42, in "
     "use_custom_allreduce",
     "p2p_disabled"),
    # vllm-project/vllm#581: two GPUs with tensor_parallel_size=2, a 15B model, slower than one
    ("多gpus如何使用？",
     "model = LLM(model=base_model, tensor_parallel_size=2)，两个gpu\n\n"
     "我快了27倍，2卡反而慢了，差不多快了14倍，不知道多卡为啥慢了",
     "expected_physics"),
    # ELS-RD/transformer-deploy#156: GPT-2 medium under Triton on two RTX 3090 Ti, 1.56 s against 860 ms on one
    ("Two GPU are slower than one",
     "Hi, I run Triton web server on two GPUs NVIDIA RTX3090Ti with `--shm-size 20g`. When I do inference, I get time "
     "near `1.56s`. But if I run web server with only one GPU set `--gpus '\"device=0\"'` after that I get the time "
     "near `860ms`. I've optimized GPT2-medium by your script.",
     "expected_physics"),
    # sgl-project/sglang#5396: DeepSeek-V3 on eight H20 with TP 8, docker image v0.4.5 against v0.4.3: the engine's
    # release, a software regression (ticket.engine_versions, category other: the engine's, not NCCL's)
    ("[Bug] degraded performance after upgrading from sglang v0.4.3 to v0.4.5",
     "I used a node H20-3e-141G to deploy DeepSeek-v3-0324 with sglang docker image v0.4.5-cu124. I ran "
     "sglang.bench_serving and found input token throughput decrease dramatically comparing with docker image v0.4.3\n"
     "python3 -m sglang.launch_server --model /data/deepseek-v3 --tp 8",
     "other"),
    # NVIDIA/TensorRT-LLM#2198: Qwen2-7B (28 heads, 4 KV heads) converted for tp_size 8 on eight L20
    ("Failed to run convert_checkpoint.py for Qwen2-7B using TRTLLM 0.12.0.dev2024080600",
     "LLM spec: Qwen2-7B, downloaded from: https://huggingface.co/Qwen/Qwen2-7B\n"
     "4. Hardware spec: L20 X 8, this is why I specified the tp_size = 8, for I want to fully utilize the 8 gpu;",
     "tp_not_dividing_heads"),
]


@pytest.mark.parametrize("title, body, category", TICKETS, ids=[t[2] + f"-{i}" for i, t in enumerate(TICKETS)])
def test_a_whole_ticket_gets_its_verdict(title, body, category):
    verdict, rules = judged(issue(f"# {title}\n\n{body}"))
    assert verdict.category == category, (verdict.category, sorted(rules))


# Sentences of other threads, none used to write the readings widened above nor in the data files, read once after the
# change (nothing was changed after them). (sentence, url, facts it should give, facts it must not give, the reason a
# strict xfail still fails)
HELD_OUT = [
    ("I updated the docker image recently and the inference was 3x slower (30s for new image vs. 10s for old image). I "
     "was able to get back to the previous inference speed by reverting to ollama/ollama:0.1.10.",
     "https://github.com/ollama/ollama/issues/1512", ["release_change"], [],
     "the release gone back to is an image tag (ollama/ollama:0.1.10, the engine's name before a slash and a colon) "
     "and the cure is 'get back to the previous inference speed': the move-back reading knows neither"),
    ("After pulling the latest official container image a couple of days ago, throughput dropped from ~300 tps to "
     "~30 tps on GPT-OSS 120B.",
     "https://github.com/ggml-org/llama.cpp/issues/18107", ["release_change"], [],
     "no release is named ('the latest official container image'): engine_moved_to needs the release moved to"),
    ("The performance of version 0.8.3 is not as good as that of version 0.6.3.",
     "https://github.com/vllm-project/vllm/issues/16342", ["release_change"], [],
     "'not as good as' is no slowdown word of the release reading (_REGRESS_WORDS), and no engine is named beside the "
     "releases"),
    ("When the model fits on one GPU, adding another introduces communication overhead without benefit.",
     "https://ori-wa-0oihggew.ori.bot/llm-knowledge-base/guides/multi-gpu-worth-it.html", [],
     ["verdict=expected_physics"], None),
    ("A second GPU does not reduce the per-token latency for a single user.",
     "https://vrlatech.com/single-gpu-vs-multi-gpu-for-ai-when-you-need-a-second-card/", [],
     ["verdict=expected_physics"], None),
    # (second batch, read once after the first: releases of the engine compared, and three near-misses: vLLM's V0 and
    # V1 engines, an advised upgrade, a maintainer's word that a fixed bug no longer occurs)
    ("For 0.85 vs 0.10.1.1 vs, it is 3.82s vs 4.47s. The 0.85 version is 17% faster.",
     "https://github.com/vllm-project/vllm/issues/24082", ["release_change"], [],
     "releases written outside their own form ('0.85' for 0.8.5, the four-part '0.10.1.1') with no engine named in "
     "the sentence"),
    ("[Bug]: vllm-0.4.0 is much slower than vllm-0.3.3", "https://github.com/vllm-project/vllm/issues/3779",
     ["release_change"], [], None),
    ("I used the previous version of vllm-0.6.1.post2 and I did benchmark to get the max TTFT and then I upgrade to "
     "the latest vllm=0.6.6.post1, but when I did the benchmark again I see a huge difference in the performance "
     "regarding the TTFT!", "https://github.com/vllm-project/vllm/issues/12274", ["release_change"], [], None),
    ("In version `V1` the first tokens are faster than `V0` but then I can see 4 tok/sec less in `V1` version: 75 "
     "tok/sec vs 71 tok/sec", "https://github.com/vllm-project/vllm/issues/13284", [], ["release_change"], None),
    ("VLLM has made a number of throughput improvements in version 0.7.2, so it's worth bumping the version, "
     "particularly for GRPO training runs.", "https://github.com/huggingface/open-r1/pull/311", [],
     ["release_change"], None),
    ("This should not occur in vLLM v0.6.3 or above anymore.", "https://github.com/vllm-project/vllm/issues/9330", [],
     ["release_change"], None),
]


@pytest.mark.parametrize("sentence, url, said, unsaid", [
    pytest.param(*case[:4], marks=[pytest.mark.xfail(reason=case[4], strict=True)] if case[4] else [])
    for case in HELD_OUT])
def test_sentences_of_other_threads_read_after_the_change(sentence, url, said, unsaid):
    assert_case_read({"sentence": sentence, "url": url, "fact": said, "not": unsaid}, _said)
