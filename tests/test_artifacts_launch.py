"""Launch lines, environment settings and engine echoes: real tickets, variants, fuzz."""

import pytest
from artifact_fuzz import assert_survives_fuzz
from conftest import shared_path

from diagnose.artifacts import launch
from diagnose.evidence import HostFact, NcclSetting, Note, Workload

TICKETS = "tickets"


def ticket_text(folder, name="attachment1.txt"):
    return shared_path(TICKETS, folder, name).read_text()


def of(records, cls):
    return [r for r in records if isinstance(r, cls)]


def test_aphrodite_eager_and_not_058():
    records = launch.parse(ticket_text("058-sonar-1114-aphrodite-enforce-eager-tp2-3060", "attachment1.log"), "a1")
    eager, graphs = of(records, Workload)
    assert eager.source == "a1:2" and graphs.source == "a1:8"
    for w in (eager, graphs):
        assert (w.framework, w.model, w.tp, w.max_model_len) == ("Aphrodite", "Qwen/Qwen2.5-Coder-7B-Instruct-AWQ",
                                                                 2, 5000)
        assert w.extra["max_num_seqs"] == "1"
    assert eager.eager is True and graphs.eager is False


def test_docker_vllm_078():
    records = launch.parse(ticket_text("078-vllm-22331-gptoss-120b-a100-tp2-slower-than-tp1"), "a1")
    (w,) = of(records, Workload)
    assert (w.framework, w.model, w.tp, w.eager) == ("vLLM", "openai/gpt-oss-120b", 2, False)
    assert {(h.name, h.value) for h in of(records, HostFact)} == {("container", True), ("ipc_host", True)}
    assert not of(records, NcclSetting)  # VLLM_* and TORCH_CUDA_ARCH_LIST are not NCCL settings


def test_sglang_server_and_bench_079():
    records = launch.parse(ticket_text("079-sglang-pr2643-deepseek-v3-h200-tp8-healthy-serving-baseline"), "a1")
    server, bench = of(records, Workload)
    assert (server.framework, server.model, server.tp, server.source) == ("SGLang", "deepseek-ai/DeepSeek-V3", 8,
                                                                          "a1:8")
    assert server.extra["enable_dp_attention"] is True
    assert bench.source == "a1:10" and bench.extra["num_prompts"] == "5000"


def test_engine_args_echo_028():
    records = launch.parse(ticket_text("028-vllm-6610-gh200-multinode-pp-socket-and-expected"), "a1")
    (w,) = of(records, Workload)
    assert (w.tp, w.pp, w.framework) == (1, 2, "vLLM")
    assert w.extra["distributed_executor_backend"] == "ray"


def test_mpirun_nccl_tests_scale_044_and_028():
    records = launch.parse(ticket_text("044-nccl-371-v100-ib-278-slower-than-256-gdr-read", "attachment2.txt"), "a2")
    assert of(records, NcclSetting) == [NcclSetting("a2:1", "NCCL_DEBUG", "INFO")]
    (w,) = of(records, Workload)
    assert (w.framework, w.nodes, w.gpu_count) == ("nccl-tests", 2, 16)  # -np 2 x -g 8 on need01, need02
    records = launch.parse(ticket_text("028-vllm-6610-gh200-multinode-pp-socket-and-expected", "attachment2.txt"), "a2")
    (w,) = of(records, Workload)
    assert (w.nodes, w.gpu_count) == (2, 2)


def test_attention_heads_error_056():
    records = launch.parse(ticket_text("056-vllm-596-3x3090-llama2-13b-40-heads-tp3"), "a1")
    (w,) = of(records, Workload)
    assert w.tp == 3 and w.extra == {"attention_heads": 40}
    assert of(records, Note)[0].kind == "error"


def test_nccl_advice_in_an_error_is_not_a_setting_027():
    text = ticket_text("027-torchtitan-853-ci-container-shm-16mb-h100", "attachment1.log")
    assert launch.detect(text) < 0.5 and launch.parse(text, "a1") == []


def test_shell_variants():
    real = ticket_text("078-vllm-22331-gptoss-120b-a100-tp2-slower-than-tp1").strip()
    text = "\n".join([
        "(base) user@gpu-node:~$ export NCCL_P2P_DISABLE=1",
        "root@box:/# NCCL_SHM_DISABLE=1 CUDA_VISIBLE_DEVICES=0,1 " + real.replace("--ipc=host", "--shm-size=16m")
        .replace("--tensor-parallel-size=2", "--tensor-parallel-size 4 \\\n   --enforce-eager --kv-cache-dtype fp8"),
        'os.environ["NCCL_ALGO"] = "Ring"',
        "torchrun --nproc_per_node=8 --nnodes=2 train.py",
    ])
    records = launch.parse(text, "cmd.sh")
    settings = {(s.name, s.value, s.source) for s in of(records, NcclSetting)}
    assert settings == {("NCCL_P2P_DISABLE", "1", "cmd.sh:1"), ("NCCL_SHM_DISABLE", "1", "cmd.sh:2"),
                        ("CUDA_VISIBLE_DEVICES", "0,1", "cmd.sh:2"), ("NCCL_ALGO", "Ring", "cmd.sh:4")}
    workloads = of(records, Workload)
    vllm = [w for w in workloads if w.framework == "vLLM"][0]
    assert (vllm.tp, vllm.eager, vllm.kv_dtype, vllm.source) == (4, True, "fp8", "cmd.sh:2")
    assert [w.cuda_visible_devices for w in workloads if w.cuda_visible_devices] == ["0,1"]
    torch = [w for w in workloads if w.framework == "PyTorch"][0]
    assert (torch.nodes, torch.gpu_count) == (2, 16)
    assert HostFact("cmd.sh:2", "shm_bytes", 16 * 1024 ** 2) in records


def test_fuzz_never_raises():
    seeds = [ticket_text("078-vllm-22331-gptoss-120b-a100-tp2-slower-than-tp1"),
             ticket_text("058-sonar-1114-aphrodite-enforce-eager-tp2-3060", "attachment1.log"),
             ticket_text("044-nccl-371-v100-ib-278-slower-than-256-gdr-read", "attachment2.txt"),
             ticket_text("028-vllm-6610-gh200-multinode-pp-socket-and-expected")]
    assert_survives_fuzz(launch, seeds, n=200)


def test_vllm_engine_config_echo_and_manifests():
    """vLLM's own log line of its engine config, a Kubernetes env list, a TRT-LLM conversion."""
    text = "\n".join([
        "INFO 07-20 17:27:10 llm_engine.py:174] Initializing an LLM engine (v0.5.2) with config: "
        "model='meta-llama/Meta-Llama-3-70B-Instruct', speculative_config=None, "
        "tokenizer='meta-llama/Meta-Llama-3-70B-Instruct', skip_tokenizer_init=False, tokenizer_mode=auto, "
        "revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=8192, download_dir=None, "
        "load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=2, "
        "disable_custom_all_reduce=True, quantization=None, enforce_eager=True, kv_cache_dtype=fp8, seed=0)",
        "        env:",
        "        - name: NCCL_IB_HCA",
        '          value: "mlx5_0,mlx5_1"',
        "        - name: HOME",
        "          value: /root",
        "python3 convert_checkpoint.py --model_dir ./Llama-3-70B --output_dir ./ckpt "
        "--dtype float16 --tp_size 8 --pp_size 1",
    ])
    records = launch.parse(text, "k8s.yaml")
    echo, convert = of(records, Workload)
    assert (echo.model, echo.tp, echo.pp, echo.dtype, echo.kv_dtype, echo.max_model_len, echo.eager) == (
        "meta-llama/Meta-Llama-3-70B-Instruct", 4, 2, "bf16", "fp8", 8192, True)
    assert echo.extra["disable_custom_all_reduce"] == "True" and echo.source == "k8s.yaml:1"
    assert of(records, NcclSetting) == [NcclSetting("k8s.yaml:4", "NCCL_IB_HCA", "mlx5_0,mlx5_1")]
    assert (convert.tp, convert.pp, convert.dtype, convert.model) == (8, 1, "fp16", "./Llama-3-70B")


def test_a_yaml_env_block_below_blank_lines_is_read_at_once():
    """issue_md hands each section of a paste with the lines above it blank (its line numbers kept). The env block's
    NCCL name is found there as on its own, and the blank lines are not read against each other: a \\s that crossed
    lines (YAML_NAME's old `^\\s*-?\\s*name:`) took seconds on a 1,500-line section (tests/data/fa24's 97 kB paste)
    and grows with the cube of the run. No pattern detect searches chains repeats that a run of newlines can take."""
    from benchmarks.regex_worst_case import runaway_repeats

    block = "env:\n  - name: NCCL_IB_HCA\n    value: mlx5_0\n"
    assert launch.detect(block) == 0.6
    assert launch.detect("\n" * 3000 + block) == 0.6 and launch.detect("\n" * 3000 + "x = 1\n") == 0.0
    searched = (launch.ADVICE, launch.COMMAND, launch.ECHO, launch.HEADS_ERROR, launch.ASSIGN, launch.PY_ENVIRON,
                launch.OLLAMA_PARALLEL, launch.YAML_NAME)
    for pattern in searched:
        assert runaway_repeats(pattern.pattern, pattern.flags, runs="\n", nested=False) == [], pattern.pattern[:40]


def test_nccl_tests_command_line_022():
    records = launch.parse(ticket_text("022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower"), "a1")
    (w,) = of(records, Workload)
    assert (w.framework, w.gpu_count, w.nodes, w.source) == ("nccl-tests", 8, None, "a1:2")  # ./all_reduce_perf -g 8


@pytest.mark.parametrize("line, gpus", [
    ("./build/all_reduce_perf -b 8 -e 1G -f 2 -t 2 -g 2", 4),  # -t threads x -g GPUs (nccl-tests README)
    ("mpirun -np 2 ./build/all_reduce_perf -t 2 -g 2", 8),  # x the processes mpirun starts
    ("mpirun --allow-run-as-root ./build/all_reduce_perf -g 8 -n 20", 8),  # the test's -n is 20 iterations
    ("./build/all_reduce_perf -b 8 -e 1G -g8", 8),  # the value glued to the flag
])
def test_nccl_tests_ranks_are_processes_threads_and_gpus(line, gpus):
    (w,) = [r for r in launch.parse(line, "launch.txt") if isinstance(r, Workload)]
    assert (w.framework, w.gpu_count) == ("nccl-tests", gpus)


# (issue 11) a setting at a sentence's end: the full stop, comma, bracket, question or exclamation mark is prose,
# not the value.
@pytest.mark.parametrize("line, value", [
    ("We already export NCCL_CUMEM_ENABLE=0.", "0"),
    ("(we run with NCCL_NVLS_ENABLE=0), and it still fails", "0"),
    ("export NCCL_SOCKET_IFNAME=eth0; then start the server", "eth0"),
    ("export NCCL_IB_HCA=mlx5_0:1", "mlx5_0:1"),
    # probes: a question or an exclamation ends at the value too
    ("Is it normal to be this slow with NCCL_P2P_DISABLE=1? It is a 4090 box.", "1"),
    ("It works with NCCL_P2P_LEVEL=NVL!", "NVL"),
])
def test_setting_value_without_sentence_punctuation(line, value):
    settings = of(launch.parse(line, "p"), NcclSetting)
    assert [s.value for s in settings] == [value]
