"""Defects found by answering real public threads about multi-GPU errors, crashes and OOMs as a support engineer
(session s26, pass ut26e, tests/data/ut26e; SOURCES.md gives each thread's address, the answer it established and
the verdict before and after), fixed in general and tested on the pastes that showed them, on real sentences of other
threads, and on real near-misses:

- engines' own refusals of a layout were answered with the generic "match the versions" fix: LMDeploy's TurboMind
  asserting at Barrier.h (its Windows build serves one GPU), 'tp should be 2^n', TensorRT-LLM's examples' 'Engine
  world size (2) != Runtime world size (1)' (a run without `mpirun -n 2`), PyTorch's 'Distributed package doesn't
  have NCCL built in'; and beside such a refusal the ticket asked for `nvidia-smi topo -m`, which cannot change it;
- "only one gpu' memory is growing and then oom" (mistral.rs#451) was answered `healthy`;
- a multi-node TP8 x PP2 layout on nodes of 8 GPUs ("Each node on my system has 8 GPUs") was read as TP spanning
  nodes of 4 GPUs (critical cross_node_tp), and the assertion the reporter retold was no error;
- a quantised width refused at TP 4 ('"intermediate_size": 27392,无法整除4*128') came back insufficient_data asking
  for the error it quotes; it now names the 214 groups and the TP sizes that split them.
"""

from pathlib import Path

from conftest import judged_issue, report_json

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims
from rules.common import gpus_per_node

DATA = Path(__file__).parent / "data" / "ut26e"


def judged(name: str):
    return judged_issue((DATA / name).read_text())


def known(findings) -> str | None:
    """The catalog row the ticket's known-error finding names, or None."""
    f = findings.get("ticket.known_error")
    if f is None:
        return None
    return f.evidence[0].detail.split("(", 1)[1].split(",", 1)[0]


# --------------------------------------------------------------------------- the pastes, as answered

def test_lmdeploy_3455_turbomind_barrier_assertion_is_its_windows_build():
    verdict, findings = judged("lmdeploy3455.md")
    assert verdict.category == "other"
    assert known(findings) == "turbomind_windows_single_gpu"
    assert "Linux" in findings["ticket.known_error"].fix and "--tp 1" in findings["ticket.known_error"].fix
    assert "workload.evidence_coverage" not in findings  # the links cannot change a build's refusal


def test_another_turbomind_assertion_is_not_the_windows_barrier():
    """Near-miss, InternLM/lmdeploy#2219: TurboMind's bind.cpp assertion on Windows at TP 1 (a quantised model the
    engine did not take), not the Barrier's refusal of several GPUs."""
    _, findings = judged_issue(
        "# [Bug] RuntimeError: [TM][ERROR] Assertion fail: D:\\a\\lmdeploy\\lmdeploy\\src\\turbomind\\python\\"
        "bind.cpp:294\n\n在加载Qwen1.5-32B-Chat-AWQ-G32 *非官方* 量化修复版时报错：\n`RuntimeError: [TM][ERROR]  "
        "Assertion fail: D:\\a\\lmdeploy\\lmdeploy\\src\\turbomind\\python\\bind.cpp:294 `\n")
    assert known(findings) != "turbomind_windows_single_gpu"


def test_lmdeploy_2249_tp_not_a_power_of_two():
    verdict, findings = judged("lmdeploy2249.md")
    assert verdict.category == "other" and known(findings) == "tp_not_power_of_two"
    assert "TP 4" in findings["ticket.known_error"].fix
    assert "workload.evidence_coverage" not in findings


def test_powers_of_two_said_in_passing_is_no_refusal():
    """Near-miss, lm-sys/FastChat#2490 (surak's comment): GPUs 'in powers of two' said as advice, no engine error."""
    _, findings = judged_issue(
        "# Fail to start vllm_worker for codellama/CodeLlama-7b-Instruct-hf on two T4 gpus\n\nI realized that vllm "
        "takes more memory than the normal worker. It's much faster, but I need more gpus - ah, and they need to be "
        "in powers of two :-)\n")
    assert known(findings) is None


def test_trtllm_108_engine_world_size_is_a_launch_without_mpirun():
    verdict, findings = judged("trtllm108.md")
    assert verdict.category == "other" and known(findings) == "world_smaller_than_layout"
    assert "mpirun -n" in findings["ticket.known_error"].fix
    assert "workload.evidence_coverage" not in findings


def test_trtllm_engine_world_size_held_out():
    """Held out, NVIDIA/TensorRT-LLM#753 (0.6.0's '(2 * 1)' form) and #440 (an engine built for 1 run as 8)."""
    for text in ("# BaiChuan: AssertionError: Engine world size (2 * 1) != Runtime world size (1)\n\n"
                 "AssertionError: Engine world size (2 * 1) != Runtime world size (1)\n",
                 "# How to use AWQ for llama 70B\n\n```\nAssertionError: Engine world size (1) != Runtime world "
                 "size (8)\n```\n"):
        _, findings = judged_issue(text)
        assert known(findings) == "world_smaller_than_layout"


def test_accessory_166_pytorch_without_nccl():
    verdict, findings = judged("accessory166.md")
    assert verdict.category == "other" and known(findings) == "torch_without_nccl"
    assert "gloo" in findings["ticket.known_error"].fix and "Linux" in findings["ticket.known_error"].fix


def test_pytorch_without_nccl_held_out_and_its_mpi_sibling():
    """tczhangzhi/pytorch-distributed#15's title (Chinese around the message, quoted twice) is the same refusal;
    PyTorch's MPI refusal (distributed_c10d.py: "Distributed package doesn't have MPI built in. MPI is only included
    if you build PyTorch from source ...") is another backend and no row of this one."""
    _, findings = judged_issue("# Windows 提示Distributed package doesn't have NCCL \"Distributed package doesn't have "
                               "NCCL built in\n\n是不是Windows不能用NCCL的backend呢？"
                               "如果是这样，请问Windows 想用多GPU怎么解决呢？\n")
    assert known(findings) == "torch_without_nccl"
    _, findings = judged_issue("# error\n\nRuntimeError: Distributed package doesn't have MPI built in. MPI is only "
                               "included if you build PyTorch from source on a host that has MPI installed.\n")
    assert known(findings) != "torch_without_nccl"


def test_mistralrs_451_one_gpu_filling_then_oom_is_an_oom():
    verdict, findings = judged("mistralrs451.md")
    assert verdict.category == "other" and known(findings) == "out_of_memory"
    assert "not being split" in findings["ticket.known_error"].fix


def test_one_gpus_vram_out_of_memory_held_out():
    """Held out, turboderp-org/exllamav2#483: 'doesn't go beyond the first GPU's VRAM (with an out-of-memory
    error)' is the GPU's OOM; near-miss, deepspeedai/DeepSpeed#2852: 'CPU OOM' is the host's."""
    _, findings = judged_issue("# v0.1.1 multi-gpu issue (fine in v0.0.21)\n\nv0.1.1 doesn't go beyond the first "
                               "GPU's VRAM (with an out-of-memory error) while v0.0.21 works fine utilizing all the "
                               "GPUs.\n")
    assert known(findings) == "out_of_memory"
    _, findings = judged_issue("# [BUG] Get \"exits with return code = -9\" when Creating fp16 ZeRO stage 2 optimizer"
                               "\n\nSame error. I use 4 * 8 A100(80GB) to train the GPT-2 model of 100B.\n\nI think it "
                               "probably stands for CPU OOM, as mentioned #2788 .\n")
    assert known(findings) != "out_of_memory"


def test_out_of_memory_row_reads_the_gpus_memory_not_the_hosts():
    """The row's new forms, on the words of the threads above and their host-side counterparts."""
    from rules.catalog import engine_errors

    pat = next(r for r in engine_errors() if r.id == "out_of_memory").pattern
    assert pat.search("the nvitop shown only one gpu' memory is growing and then oom.")
    assert not pat.search("the GPU node ran out of memory")
    assert not pat.search("GPU memory is fine, then OOM on the host")


def test_transformers_24056_device_assert_across_4090s_names_the_p2p_check():
    """The established cause (ACS, a commenter with the same failure) is the GPUs' peer path; the verdict stays
    `other` (the paste alone does not show the path), and the fix now names the P2P checks."""
    verdict, findings = judged("hf24056.md")
    assert verdict.category == "other" and known(findings) == "device_assert"
    fix = findings["ticket.known_error"].fix
    assert "simpleP2P" in fix and "ACS" in fix


def test_bloom_inference_16_bus_error_is_dev_shm():
    verdict, _ = judged("bloominf16.md")
    assert verdict.category == "shm_too_small"


def test_trtllm_1035_nodes_of_eight_gpus_keep_tp8_inside_a_node():
    verdict, findings = judged("trtllm1035.md")
    assert verdict.category == "other"
    assert findings["workload.cross_node_tp"].severity == "ok"
    assert "latest release" in findings["ticket.software_error"].fix


def test_each_node_on_my_system_has_8_gpus_is_the_nodes_size():
    facts = Facts()
    facts.add(*issue_md.parse((DATA / "trtllm1035.md").read_text(), "issue.md"))
    assert gpus_per_node(facts) == 8
    assert claims.find(facts, "exception")  # "there is an assertion that ...": the engine's check, retold


def test_an_assert_proposed_is_no_exception():
    """Near-miss, hpcaitech/ColossalAI#5670: a pull request that adds an assert is no failure seen."""
    facts = Facts()
    facts.add(*issue_md.parse("# [Shardformer] add assert for num of attention heads divisible by tp_size\n\nAdded an "
                              "assertion for the number of attention heads being divisible by the TP size dimension "
                              "for the Shardformer.\n", "issue.md"))
    assert not claims.find(facts, "exception")


def test_trtllm_gpus_per_node_message():
    """The runtime's own message (triton-inference-server/tensorrtllm_backend#283's model status), a refusal before
    any traffic: no topology asked beside it."""
    r = report_json("ticket", str(DATA / "trtllm1035.md"))
    assert r["verdict"]["category"] == "other"
    _, findings = judged_issue(
        "# Unable to launch Triton Server Across Multi Nodes\n\n| tensorrt_llm | 1 | UNAVAILABLE: Internal: unexpected "
        "error when creating modelInstanceState: [TensorRT-LLM][ERROR] Assertion failed: Number of GPUs per node 1 "
        "must be at least as large as TP (4) * PP (1) (/app/tensorrt_llm/cpp/tensorrt_llm/runtime/worldConfig.cpp:80)"
        " |\n")
    assert known(findings) == "trtllm_gpus_per_node"
    assert "workload.evidence_coverage" not in findings


def test_lmdeploy_1560_quantised_width_names_the_tp_sizes_that_split_it():
    verdict, findings = judged("lmdeploy1560.md")
    assert verdict.category == "tp_not_dividing_heads"
    f = findings["ticket.tp_size_error"]
    assert "214 quantisation groups" in f.fix and "TP 1 or 2" in f.fix and "use TP 2" in f.fix
    groups = next(e for e in f.evidence if e.detail.startswith("quantisation groups"))
    assert groups.measured == 214 and groups.source == "issue.md:5"  # the line that states it
    assert "workload.evidence_coverage" not in findings  # a refusal to load: how the GPUs connect cannot change it


def test_a_refusal_said_without_tp_times_group_keeps_the_plain_fix():
    """vllm-project/vllm#414's refusal names heads and a TP size, no quantisation group: no groups computed."""
    _, findings = judged_issue("# ValueError: Total number of attention heads (52) must be divisible by tensor "
                               "parallel size (3).\n")
    f = findings["ticket.tp_size_error"]
    assert "quantisation groups" not in f.fix
