"""Defects found by answering real Chinese-language multi-GPU threads as a support engineer (session s26, pass ut26f,
issue 11; tests/data/ut26f, SOURCES.md gives each thread's address, the answer it established and the verdict before
and after), fixed in general and tested on the paste that showed them, on real sentences of other threads, and on
real near-misses:

- the training words said in Chinese (训练 "training", 微调 "fine-tuning", 梯度, 反向传播) were not read, so a
  fine-tuning job's "more GPUs are slower" got no data-parallel answer (QwenLM/Qwen#669) (ticket_figures._TRAINING);
- the scaling complaint said from the fewer GPUs' side, "单张A100比2张A100速度快" (one A100 faster than two,
  QwenLM/Qwen#669), or as "四卡...还不如单卡...快" (four cards not as fast as one, PaddlePaddle/PaddleOCR#3715), was
  no complaint (claims._CJK_SCALING);
- a GPU count said per machine, "在每台机器为8卡A800显卡下" (modelscope/ms-swift#1825), was taken as the job's total
  and halved over the nodes (issue_md.CJK_EACH_THEN_COUNT);
- the accelerators of Chinese threads that are not NVIDIA's (Huawei Ascend "910b", DeepLink-org/dlinfer#109) were
  asked for nvidia-smi and NCCL tests (claims._OTHER_VENDOR);
- a job across machines stuck where NCCL starts ("卡在了init nccl后", PaddlePaddle/Paddle#51096, fixed by
  NCCL_SOCKET_IFNAME) had no lead on the interface NCCL connects on (ticket.init_hang_across_nodes).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims
from rules.ticket_figures import training_job

DATA = Path(__file__).parent / "data" / "ut26f"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


# --------------------------------------------------------------------------- the pastes, as answered

def test_qwen_669_fine_tuning_on_two_gpus_is_answered_as_data_parallel_training():
    """The thread's answer (jklj077): the per-device batch is fixed, so two GPUs train twice the batch per step."""
    r = verdict("qwen669.md")
    assert r["verdict"]["category"] == "expected_physics"
    lead = finding(r, "ticket.symptom_prior")
    assert lead["title"].startswith("Data-parallel training")
    assert "examples" in lead["fix"]


def test_swift_1825_counts_the_gpus_of_each_machine():
    """"每台机器为8卡A800": eight GPUs in each node, not eight over two nodes."""
    r = verdict("swift1825.md")
    assert r["verdict"]["category"] == "insufficient_data"  # the network path decides; the thread: IB was disabled
    work = next(w for w in r["facts"]["workload"] if w.get("gpu") == "A800")
    assert work["extra"].get("gpus_per_node") == 8
    coverage = finding(r, "workload.evidence_coverage")
    assert coverage["evidence"][0]["measured"] == 8
    assert "NET/IB" in finding(r, "nccl.gdr")["fix"]  # the ask that shows whether NCCL used the network's IB


def test_dlinfer_109_ascend_910b_is_not_judged_as_an_nvidia_gpu():
    r = verdict("dlinfer109.md")
    assert r["verdict"]["category"] == "insufficient_data"
    assert finding(r, "ticket.other_vendor")
    assert "nvidia-smi" not in r["verdict"]["summary"]
    assert "all_reduce_perf" not in r["verdict"]["summary"]


@pytest.mark.parametrize("name, category", [
    ("paddle44777.md", "p2p_disabled"),      # the reporter: NCCL_P2P_DISABLE=1 cured the hang (NVIDIA/nccl#631)
    ("chatglm1269.md", "expected_physics"),  # duzx16: the script spreads a model over small cards, not for speed
])
def test_held_out_answers_stay(name, category):
    """Held-out checks: the threads whose verdict the tool gave blind keep it."""
    assert verdict(name)["verdict"]["category"] == category


@pytest.mark.parametrize("name", ["medicalgpt330.md"])
def test_undecided_threads_stay_undecided(name):
    """No verdict the paste cannot carry (SOURCES.md: what is left and why)."""
    assert verdict(name)["verdict"]["category"] == "insufficient_data"


# --------------------------------------------------------------------------- training said in Chinese

@pytest.mark.parametrize("text", [
    "lora微调，相同参数配置，达到相同收敛的loss(如0.0002)，单张A100比2张A100速度快",  # QwenLM/Qwen#669
    "使用A10对qwen-14b-chat进行Lora微调，2机2卡训练比1机2卡慢了10倍",  # hiyouga/LlamaFactory#4620
    "两卡训练速度比单卡训练速度慢",  # renmada/t5-pegasus-pytorch#68
    "reranker模型微调，单机多卡会比单卡慢很多。",  # FlagOpen/FlagEmbedding#848
])
def test_training_said_in_chinese_is_a_training_job(text):
    assert training_job(said(text))


@pytest.mark.parametrize("text", [
    "微调后的模型如何多卡推理",  # hiyouga/LlamaFactory#3769: a fine-tuned model, served
    "用训练好的模型做多卡推理，速度很慢",
    "加载预训练模型后双卡推理比单卡还慢",
])
def test_a_model_trained_before_it_is_served_is_no_training_job(text):
    """Near-misses: the model was trained or tuned earlier; the ticket is about inference."""
    assert not training_job(said(text))


# --------------------------------------------------------------------------- the fewer GPUs said faster

@pytest.mark.parametrize("text", [
    "单张A100比2张A100速度快，请问是什么原因呢？",  # QwenLM/Qwen#669
    "我发现我每次开四卡跑模型还不如单卡跑的快，有人遇到这个问题么？",  # PaddlePaddle/PaddleOCR#3715
    "两张4090还不如一张快",
])
def test_fewer_gpus_said_faster_is_the_scaling_complaint(text):
    assert claims.symptom_quote(said(text))[2] == "scaling"


@pytest.mark.parametrize("text", [
    "单卡并不比双卡快",  # denied
    "单卡不如双卡快",  # one card is not as fast as two: what more cards are for
])
def test_the_other_way_round_is_no_scaling_complaint(text):
    assert claims.symptom_quote(said(text))[2] != "scaling"


# --------------------------------------------------------------------------- a count said per machine

def test_a_count_per_machine_in_chinese_is_the_nodes_size():
    from diagnose.artifacts import issue_md

    assert issue_md.CJK_EACH_THEN_COUNT.search("在每台机器为 ")  # modelscope/ms-swift#1825, as cjk_spaced writes it
    assert issue_md.CJK_EACH_THEN_COUNT.search("每个节点")
    # near-misses: each card, each process
    assert not issue_md.CJK_EACH_THEN_COUNT.search("每张卡 ")
    assert not issue_md.CJK_EACH_THEN_COUNT.search("每个进程 ")


# --------------------------------------------------------------------------- another vendor's accelerator

@pytest.mark.parametrize("text", [
    "设备：910b\n单卡速度很快，2个卡速度慢了将近一倍",  # DeepLink-org/dlinfer#109
    "昇腾910B 多卡推理很慢",
])
def test_ascend_is_another_vendor(text):
    assert claims._OTHER_VENDOR.search(text)


@pytest.mark.parametrize("text", [
    "双卡 4090 跑 70B 只有 5 token/s，显存占用 910 MB",
    "8张A100推理，吞吐只有910 tokens/s",
])
def test_a_bare_910_is_no_accelerator(text):
    assert not claims._OTHER_VENDOR.search(text)


# --------------------------------------------------------------------------- a hang where NCCL starts, across machines

def _ticket(tmp_path, text: str) -> dict:
    path = tmp_path / "issue.md"
    path.write_text(text, encoding="utf-8")
    return report_json("ticket", str(path))


def test_paddle_51096_init_hang_across_nodes_asks_for_the_interface():
    """The reporter's fix months later: `export NCCL_SOCKET_IFNAME`. The lead names it and asks for the bootstrap
    lines that show the interface; the verdict stays undecided (the paste shows no interface)."""
    r = verdict("paddle51096.md")
    assert r["verdict"]["category"] == "insufficient_data"
    lead = finding(r, "ticket.init_hang_across_nodes")
    assert "NCCL_SOCKET_IFNAME" in lead["fix"] and "Bootstrap : Using" in lead["ask"]
    assert "init nccl" in str(lead["evidence"])


def test_an_init_hang_said_in_english_across_machines(tmp_path):
    text = ("# Multinode cannot be started\n\nI try to run a multi-node following the instructions for 2 machine with "
            "8x4090 each. But it just stopped at \"Init nccl begin\" without further progress.\n")  # sglang#958
    assert finding(_ticket(tmp_path, text), "ticket.init_hang_across_nodes")


@pytest.mark.parametrize("text", [
    # one machine: the peer-to-peer path is the suspect there (ticket.hang_on_pcie), not the interface
    "# 多卡运行会卡住\n\n单卡正常，两卡就有问题，卡在了init nccl后\n",
    # across machines, but after the job had run: the bootstrap worked
    "# 多机多卡训练卡住\n\n两台机器训练，跑了几个小时后卡住，日志停在 step 2000\n",
    # across machines, stuck in training, no word of NCCL's start
    "# multi-node training hangs\n\nTraining on 2 nodes is stuck at step 200 with both GPUs at 100%.\n",
])
def test_other_hangs_are_not_read_as_an_init_hang_across_nodes(tmp_path, text):
    assert not finding(_ticket(tmp_path, text), "ticket.init_hang_across_nodes")
