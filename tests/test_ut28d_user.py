"""Defects found by answering real Chinese-language multi-GPU threads as a support engineer (session s28, pass ut28d,
issue 11; tests/data/ut28d, SOURCES.md gives each thread's address, the answer it established and the verdict before
and after), fixed in general and tested on the paste that showed them, on real sentences of other threads, and on
near-misses:

- a model left on one GPU (or split unevenly) that runs out of memory while the other GPUs stay nearly empty had no
  lead: "0卡总是显存溢出，其余卡显存占用极少" (InternLM/lmdeploy#2145), "模型并没有加载到两张卡上？还是报错OOM"
  (InternLM/lmdeploy#1059), "前两张卡跑满，后两张卡几乎无占用" (modelscope/ms-swift#1376): ticket.memory_unsplit;
- out of memory said in Chinese (显存溢出, 显存不足, 爆显存), Japanese and Korean, or as "OOM" glued to a CJK word
  ("报错OOM": no word boundary there), was not read (claims.out_of_memory);
- a Chinese GPU count with each card's memory between the count and the name, "4 张 24G 显存的 3090", was not read,
  and one after 前 / 后 ("the first / last two cards") was read as the job's count (issue_md.CJK_GPU_COUNT,
  CJK_PART_BEFORE);
- "双卡4090推理时有一卡一直没有用上" (one of two cards never used) was not read as one GPU doing the work
  (gpus_in_use.ONE_GPU_USED);
- an illegal memory access in a split model named no test of the peer-to-peer path that cured it (InternLM/lmdeploy
  #2204: NCCL_P2P_DISABLE=1): rules/catalog/engine_errors.toml illegal_address.
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from diagnose.artifacts import issue_md
from rules import claims
from rules.gpus_in_use import one_gpu_in_use
from rules.ticket_questions import memory_unsplit

DATA = Path(__file__).parent / "data" / "ut28d"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def counts(text: str) -> list:
    return [(w.gpu, w.gpu_count) for w in issue_md.parse("# 多卡推理\n\n" + text + "\n", "t.md")
            if type(w).__name__ == "Workload" and (w.gpu or w.gpu_count)]


# --------------------------------------------------------------------------- the pastes, as answered

@pytest.mark.parametrize("name, fix_words", [
    ("lmdeploy2145.md", "TurbomindEngineConfig(tp=N)"),  # irexyc: pipeline() needs TurbomindEngineConfig(tp=4)
    ("lmdeploy1059.md", "TurbomindEngineConfig(tp=N)"),  # irexyc: the config was passed under the wrong keyword
    ("swift1376.md", "max_memory"),  # tastelikefeet: --device_max_memory evens the device_map split
])
def test_out_of_memory_on_one_gpu_with_the_others_empty_is_an_unsplit_model(name, fix_words):
    r = verdict(name)
    assert r["verdict"]["category"] == "insufficient_data"  # a lead with its ask: the start-up log shows the layout
    lead = finding(r, "ticket.memory_unsplit")
    assert lead and fix_words in lead["fix"]
    assert "all_reduce_perf" not in r["verdict"]["summary"]  # no link test for a model that sits on one GPU


def test_lmdeploy_2145_counts_four_3090s():
    """"我使用 4 张 24G 显存的 3090": four GPUs, each card's memory said between the count and the name."""
    r = verdict("lmdeploy2145.md")
    assert any(w.get("gpu") == "3090" and w.get("gpu_count") == 4 for w in r["facts"]["workload"])


def test_swift_1376_does_not_count_the_first_two_cards_as_the_job():
    r = verdict("swift1376.md")
    assert not any(w.get("gpu_count") == 2 for w in r["facts"]["workload"])


def test_lmdeploy_2204_illegal_access_names_the_p2p_test_that_cured_it():
    r = verdict("lmdeploy2204.md")
    known = finding(r, "ticket.known_error")
    assert known and "NCCL_P2P_DISABLE=1" in known["fix"]


def test_chatchat_3002_one_card_unused_is_the_single_gpu_placement():
    """zRzRzRzRzRzRzR (maintainer): fschat runs on one card; chatglm3-6b fits one 4090."""
    r = verdict("chatchat3002.md")
    assert r["verdict"]["category"] == "healthy"
    assert finding(r, "ticket.one_gpu_by_design")
    # one GPU does the work and no split was asked for: how the GPUs connect decides nothing, so no topology ask
    assert finding(r, "workload.evidence_coverage") is None
    assert "topo" not in r["verdict"]["summary"]


def test_a_split_run_still_asks_how_its_gpus_connect():
    """Near-miss: lmdeploy#2204 runs --tp 4; its GPUs talk, so the topology ask stays."""
    assert finding(verdict("lmdeploy2204.md"), "workload.evidence_coverage")


@pytest.mark.parametrize("name, category", [
    ("xorbits2956.md", "cross_node_tp"),  # qinxuye: SGLang is tensor-parallel only, "非常依赖网络"
    ("fastllm201.md", "expected_physics"),  # TylunasLi: the split runs like a pipeline; one card per model instead
    ("vllmascend770.md", "insufficient_data"),  # Ascend 910B3: the vendor's own performance work (ticket.other_vendor)
])
def test_held_answers_stay(name, category):
    assert verdict(name)["verdict"]["category"] == category


def test_vllm_36772_unsplit_model_gets_the_lead_beside_its_known_error():
    """tests/data/ut16 (vllm-project/vllm#36772): tensor_parallel_size=1 on 4 x RTX 3060, "the model loads only on
    GPU 0 and fails with CUDA OOM": the lead's fix (set the TP size) is the thread's; the verdict stays ut16's."""
    r = report_json("ticket", str(DATA.parent / "ut16" / "vllm36772.md"))
    assert finding(r, "ticket.memory_unsplit")
    assert r["verdict"]["category"] == "other"


def test_vllm_ascend_770_is_judged_as_another_vendor():
    assert finding(verdict("vllmascend770.md"), "ticket.other_vendor")


# --------------------------------------------------------------------------- where the memory sits

@pytest.mark.parametrize("text", [
    "0卡总是显存溢出，其余卡显存占用极少。",  # InternLM/lmdeploy#2145
    "在加载模型的时候发现模型并没有加载到两张卡上？还是报错OOM",  # InternLM/lmdeploy#1059
    "部署后，前两张卡跑满，后两张卡几乎无占用，推理就会报显存溢出。",  # modelscope/ms-swift#1376
    "推理时很容易因为第一张卡显存溢出报错，但其他卡还有大量显存。",  # InternLM/lmdeploy#1555
    # stepfun-ai/Step-Video-T2V#5 (the placement put the text encoder and VAE on the last GPU by design)
    "It seems the model weights are all on the last gpu, so when inferencing, the last gpu ran out of memory.",
    # vllm-project/vllm#36772 (Docker Model Runner started vLLM at tensor_parallel_size=1 on 4 x RTX 3060)
    "As a result, the model loads only on GPU 0 and fails with CUDA OOM, instead of sharding across 4 GPUs.",
])
def test_memory_on_some_gpus_and_the_others_empty_is_read(text):
    facts = said(text)
    assert memory_unsplit(facts)
    assert claims.out_of_memory(facts)


@pytest.mark.parametrize("text", [
    # every card holds the same share: a reservation, not an unsplit model
    "一张4090 单卡部署qwen2-7b模型占用了20g显存，而用两张4090卡，每张都会各占20g",  # hiyouga/LlamaFactory#4870
    # out of memory on one card, with nothing said of the others
    "运行cli_demo_multi_gpus.py代码,在加载模型到第三张卡的时候显存溢出,第三张卡加载超过了14G",  # zai-org/CogVLM2#136
    "使用docker部署InternVL2-26B，每张卡占用了40G以上的显存",  # InternLM/lmdeploy#2204
    # the memory uneven, said of a data-parallel training run with no card empty (ethnhe/FFB6D#35)
    "My main problem comes from the 0 GPU get more memories than others.",
    "The model is loaded onto GPU 0 and GPU 1 with device_map='auto'.",  # both GPUs named
])
def test_memory_said_otherwise_is_no_unsplit_model(text):
    assert memory_unsplit(said(text)) is None


def test_the_lead_needs_an_out_of_memory_error(tmp_path):
    """The others nearly empty with nothing out of memory: a placement asked about, not this lead."""
    ticket = tmp_path / "t.md"
    ticket.write_text("# 多卡推理\n\n两张4090推理Qwen2-7B，0卡显存占满，其余卡显存占用极少。\n")
    assert memory_unsplit(said(ticket.read_text()))
    assert finding(report_json("ticket", str(ticket)), "ticket.memory_unsplit") is None


# --------------------------------------------------------------------------- out of memory, said in CJK

@pytest.mark.parametrize("text", [
    "0卡总是显存溢出",  # InternLM/lmdeploy#2145
    "还是报错OOM，哪怕设置了cache_max_entry_count = 0.1也不行",  # InternLM/lmdeploy#1059
    "单卡显存不足，只能多卡部署",
])
def test_out_of_memory_in_chinese(text):
    assert claims.out_of_memory(said(text))


@pytest.mark.parametrize("text", [
    "单卡显存足够，不需要多卡",  # enough memory: no shortage
    "ZOOM会议里讨论了多卡推理",  # "OOM" inside a word
])
def test_no_out_of_memory_in_these(text):
    assert not claims.out_of_memory(said(text))


# --------------------------------------------------------------------------- counts

@pytest.mark.parametrize("text, expected", [
    ("我使用 4 张 24G 显存的 3090，加载 InternVL2-26B", [("3090", 4)]),  # InternLM/lmdeploy#2145
    ("两张4090单机多卡跑，咋感觉越跑越慢了，比单卡慢", [("4090", 2)]),  # yuanzhoulvpi2017/zero_nlp#155 (unchanged)
    ("我目前两张4090跑Qwen2-7B推理很慢", [("4090", 2)]),  # 目前 ("currently") before the count: still the count
    ("前两张卡跑满，后两张卡几乎无占用，推理就会报显存溢出。", []),  # modelscope/ms-swift#1376: part of the GPUs
])
def test_cjk_counts(text, expected):
    assert counts(text) == expected


# --------------------------------------------------------------------------- one card unused

def test_one_card_never_used_is_one_gpu_in_use():
    assert one_gpu_in_use(said("双卡4090推理时有一卡一直没有用上"))  # chatchat-space/Langchain-Chatchat#3002


@pytest.mark.parametrize("text", [
    "两张4090在做推理的时候，一张卡的利用率很低，另外一张利用率比较高",  # baichuan-inc/Baichuan-13B#126: both work
])
def test_uneven_use_is_not_one_card_unused(text):
    assert one_gpu_in_use(said(text)) is None
