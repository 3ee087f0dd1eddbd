"""Formats people paste into issues: vLLM's collect_env report, engine flags without the program,
interpreter flags before -m, nccl-tests' own failure lines. The samples follow the tools' printed
formats (vLLM's collect_env.py, CPython's command line, nccl-tests' common.cu)."""

from diagnose.artifacts import parse_text
from diagnose.evidence import GpuFact, HostFact, NcclEvent, NcclVersion, TopologyPath, Workload

COLLECT_ENV = """Collecting environment information...
PyTorch version: 2.4.0+cu121
Is debug build: False
CUDA used to build PyTorch: 12.1
GPU models and configuration:
GPU 0: NVIDIA H100 80GB HBM3
GPU 1: NVIDIA H100 80GB HBM3

Nvidia driver version: 550.54.15
Versions of relevant libraries:
[pip3] nvidia-nccl-cu12==2.20.5
[pip3] torch==2.4.0
[pip3] vllm==0.6.3.post1
vLLM Version: 0.6.3.post1
GPU Topology:
GPU0\tGPU1\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNV18\t0-55\t0
GPU1\tNV18\t X \t0-55\t0
"""


def of(records, cls):
    return [r for r in records if isinstance(r, cls)]


def test_collect_env_gives_gpus_versions_and_topology():
    records, read = parse_text(COLLECT_ENV, "env.txt")
    assert read.kinds[:1] == ["collect_env"] and "topo_matrix" in read.kinds
    assert [(g.index, g.name) for g in of(records, GpuFact) if g.name] == [(0, "NVIDIA H100 80GB HBM3"),
                                                                          (1, "NVIDIA H100 80GB HBM3")]
    assert [v.version for v in of(records, NcclVersion)] == ["2.20.5"]
    assert {h.name: h.value for h in of(records, HostFact)}["driver_version"] == "550.54.15"
    assert "vLLM 0.6.3.post1" in {w.framework for w in of(records, Workload)}
    assert {t.path for t in of(records, TopologyPath)} == {"NV18"}


def test_engine_flags_without_the_program():
    records, read = parse_text("--model Qwen/Qwen2.5-72B-Instruct --tensor-parallel-size 8 --enforce-eager\n",
                               "flags.txt")
    (w,) = of(records, Workload)
    assert read.kinds == ["launch"] and (w.model, w.tp, w.eager) == ("Qwen/Qwen2.5-72B-Instruct", 8, True)


def test_a_sentence_with_two_dashes_is_not_engine_flags():
    _, read = parse_text("-- we tried --help and it printed nothing\n", "note.txt")
    assert "launch" not in read.kinds


def test_interpreter_flags_before_dash_m():
    records, _ = parse_text("python3 -u -X faulthandler -m vllm.entrypoints.openai.api_server --model m "
                            "--tensor-parallel-size 2\n",
                            "run.sh")
    (w,) = of(records, Workload)
    assert (w.framework, w.tp) == ("vLLM", 2)


def test_nccl_tests_failure_lines():
    text = ("node1: Test NCCL failure common.cu:958 "
            "'unhandled system error (run with NCCL_DEBUG=INFO for details) / '\n"
            "node2: Test CUDA failure common.cu:1007 'CUDA-capable device(s) is/are busy or unavailable'\n")
    records, read = parse_text(text, "nccl-tests.log")
    assert "nccl_log" in read.kinds
    assert [e.kind for e in of(records, NcclEvent)] == ["error", "cuda_error"]
