"""WSL 2 read from the tools' own output, not only from the reporter's words (issue 11): the kernel release
(`uname`, /proc/version, collect_env's platform), the GPUs' WDDM driver model (`nvidia-smi -q`, the Windows
table's TCC/WDDM column), and nvidia-smi's Linux build beside the Windows host's driver version. A multi-GPU job
there gets the WSL verdict and the WSL fix (NCCL is not supported under WSL 2: NVIDIA's CUDA on WSL guide,
https://github.com/NVIDIA/nccl-tests/issues/69, https://github.com/NVIDIA/nccl/issues/442).

The outputs are real (tests/data/hardware/real/, SOURCES.md); the sentences beside them are paraphrased problem
statements, none naming WSL, so the facts alone must carry it.
"""

from pathlib import Path

import pytest

from diagnose.artifacts import parse_text
from diagnose.bundle import read_bundle
from diagnose.evidence import GpuFact, HostFact
from rules.common import wsl_evidence
from rules.engine import evaluate, ticket_verdict
from rules.topology import WSL_FIX

REAL = Path(__file__).parent / "data" / "hardware" / "real"


def _records(name: str):
    records, _ = parse_text((REAL / name).read_text(), name)
    return records


def test_the_kernel_release_in_its_three_forms():
    (k,) = [r for r in _records("uname_proc_version_wsl2_wsl13027.txt") if isinstance(r, HostFact)]
    assert (k.name, k.value) == ("kernel", "5.15.167.4-microsoft-standard-WSL2")
    for text, want in (
            ("$ uname -a\nLinux DESKTOP-7 5.15.153.1-microsoft-standard-WSL2 #1 SMP Fri Mar 29 23:14:13 UTC 2024 "
             "x86_64 x86_64 x86_64 GNU/Linux", "5.15.153.1-microsoft-standard-WSL2"),
            ("uname -r\n6.8.0-45-generic", "6.8.0-45-generic"),
            ("Python platform: Linux-5.15.133.1-microsoft-standard-WSL2-x86_64-with-glibc2.35\n"
             "Collecting environment information...\nPyTorch version: 2.4.0\nIs debug build: False",
             "5.15.133.1-microsoft-standard-WSL2")):
        records, _ = parse_text(text, "t")
        assert [r.value for r in records if isinstance(r, HostFact) and r.name == "kernel"] == [want], text


def test_version_strings_are_no_kernel_release():
    for text in ("nccl 2.18.3-1+cuda12.1", "2.21.5-1+cuda12.4", "vllm 0.6.3.post1", "NCCL version 2.21.5+cuda12.4",
                 "2.4.0"):
        records, read = parse_text(text, "t")
        assert "uname" not in read.kinds, text


def test_the_driver_model_and_the_versions_nvidia_smi_prints():
    (gpu,) = [r for r in _records("smi_a_wsl2_gtx1650ti_wddm_ctk271.txt") if isinstance(r, GpuFact)]
    assert gpu.driver_model == "WDDM"
    host = {r.name: r.value for r in _records("smi_table_wsl2_banner_wsl11277.txt") if isinstance(r, HostFact)}
    assert (host["nvidia_smi_version"], host["driver_version"]) == ("550.54.10", "551.61")
    gpus = [r for r in _records("smi_table_windows_wddm_2gpu_wsl9134.txt") if isinstance(r, GpuFact)]
    assert [(g.index, g.driver_model, g.persistence_mode) for g in gpus] == [(0, "WDDM", None), (1, "WDDM", None)]


def _bundle(tmp_path, text: str, *attachments: str):
    (tmp_path / "issue.md").write_text("# Question\n\n" + text + "\n")
    for i, name in enumerate(attachments):
        (tmp_path / f"attachment{i}.txt").write_text((REAL / name).read_text())
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    return facts, ticket_verdict(facts, findings), {f.rule: f for f in findings}


@pytest.mark.parametrize("attachment", ["uname_proc_version_wsl2_wsl13027.txt", "smi_table_wsl2_banner_wsl11277.txt",
                                        "smi_a_wsl2_gtx1650ti_wddm_ctk271.txt"])
@pytest.mark.parametrize("text", [
    "vLLM with --tensor-parallel-size 2 on my two RTX 4090s hangs at startup after the NCCL init lines.",
    "Two 3090s, tensor parallel 2: the server never finishes loading, while TP=1 works fine.",
])
def test_a_multi_gpu_hang_with_wsl_in_the_outputs_gets_the_wsl_verdict_and_fix(tmp_path, attachment, text):
    facts, verdict, found = _bundle(tmp_path, text, attachment)
    assert wsl_evidence(facts)
    f = found["topology.virtualization_no_p2p"]
    assert verdict.category == "virtualization_no_p2p"
    assert f.fix == WSL_FIX and "WSL 2" in f.title
    assert f.evidence[0].source.startswith("attachment0.txt")  # the tool's output, first


def test_the_native_windows_table_is_a_windows_host(tmp_path):
    facts, verdict, found = _bundle(tmp_path, "Both GPUs with tensor parallel 2 crash at the first all-reduce.",
                                    "smi_table_windows_wddm_2gpu_wsl9134.txt")
    assert [e.measured for e in wsl_evidence(facts)] == ["WDDM"]  # the versions agree: no WSL guest shown
    assert found["topology.virtualization_no_p2p"].fix == WSL_FIX


def test_one_gpu_under_wsl_or_a_native_kernel_is_no_wsl_verdict(tmp_path):
    # one GPU: nothing between GPUs to break
    a = tmp_path / "a"
    a.mkdir()
    _, verdict, found = _bundle(a, "One GPU decodes Llama-3-8B at 20 tok/s, slower than I hoped.",
                                "uname_proc_version_wsl2_wsl13027.txt")
    assert "topology.virtualization_no_p2p" not in found
    # a native kernel, WSL ruled out in words: no virtualisation anywhere
    b = tmp_path / "b"
    b.mkdir()
    (b / "uname.txt").write_text("$ uname -r\n6.8.0-45-generic\n")
    facts, verdict, found = _bundle(b, "Not WSL, a native Ubuntu install: vLLM TP=2 on two 3090 hangs at startup.")
    assert not wsl_evidence(facts) and "topology.virtualization_no_p2p" not in found
