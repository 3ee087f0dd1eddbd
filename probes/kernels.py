"""Single-GPU and GPU-pair measurements: HBM copy, pinned host<->device copies, P2P copy
bandwidth and latency, dense GEMM (bf16, fp16, fp8 where the GPU has it) and GEMV at decode
shapes. CUDA events for timing, warm-up first, the median over repeats.

GPU-only: every function imports torch inside and needs CUDA (the `gpu`-marked tests and
scripts/gpu_check.sh exercise them). Results are evidence records, never printed.
"""

from __future__ import annotations

import itertools
import statistics
import time
from typing import Callable

from diagnose.evidence import GpuFact, Measurement, PairBandwidth

SOURCE = "probe:kernels"


def time_cuda(fn: Callable[[], None], warmup: int = 3, repeats: int = 10, inner: int = 1) -> float:
    """Median seconds per call of `fn` on the current device, timed with CUDA events."""
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        begin.record()
        for _ in range(inner):
            fn()
        end.record()
        end.synchronize()
        samples.append(begin.elapsed_time(end) / 1e3 / inner)
    return statistics.median(samples)


def hbm_bandwidth(gpu: int, size_bytes: int = 1 << 30) -> Measurement:
    """Device-to-device copy: each byte is read once and written once, so 2 x size / time."""
    import torch

    with torch.cuda.device(gpu):
        src = torch.empty(size_bytes, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        seconds = time_cuda(lambda: dst.copy_(src))
        del src, dst
    return Measurement(f"{SOURCE}:hbm:gpu{gpu}", "hbm_gbs", 2 * size_bytes / seconds / 1e9, "GB/s",
                       stat="median", gpu=gpu, size_bytes=size_bytes)


def host_copies(gpu: int, size_bytes: int = 256 << 20) -> list[Measurement]:
    """Pinned host memory to and from the GPU (what PCIe and the CPU root port deliver)."""
    import torch

    with torch.cuda.device(gpu):
        host = torch.empty(size_bytes, dtype=torch.uint8, pin_memory=True)
        dev = torch.empty(size_bytes, dtype=torch.uint8, device="cuda")
        h2d = time_cuda(lambda: dev.copy_(host, non_blocking=True))
        d2h = time_cuda(lambda: host.copy_(dev, non_blocking=True))
        del host, dev
    return [Measurement(f"{SOURCE}:h2d:gpu{gpu}", "h2d_gbs", size_bytes / h2d / 1e9, "GB/s", "median",
                        gpu=gpu, size_bytes=size_bytes),
            Measurement(f"{SOURCE}:d2h:gpu{gpu}", "d2h_gbs", size_bytes / d2h / 1e9, "GB/s", "median",
                        gpu=gpu, size_bytes=size_bytes)]


def p2p_matrix(gpus: list[int], size_bytes: int = 256 << 20) -> list[PairBandwidth]:
    """Unidirectional copy bandwidth and small-copy latency for every ordered GPU pair.

    Peer access is enabled where CUDA allows it (p2p_enabled says which); elsewhere the copy
    goes through the host, as p2pBandwidthLatencyTest's P2P=Disabled matrix does.
    """
    import torch

    out = []
    for a, b in itertools.permutations(gpus, 2):
        peer = bool(torch.cuda.can_device_access_peer(a, b))
        src = torch.empty(size_bytes, dtype=torch.uint8, device=f"cuda:{a}")
        dst = torch.empty(size_bytes, dtype=torch.uint8, device=f"cuda:{b}")
        tiny_src, tiny_dst = src[:4], dst[:4]
        with torch.cuda.device(a):
            seconds = time_cuda(lambda: dst.copy_(src, non_blocking=True), repeats=5)
            latency = time_cuda(lambda: tiny_dst.copy_(tiny_src, non_blocking=True), repeats=5, inner=100)
        del src, dst
        source = f"{SOURCE}:p2p:gpu{a}->gpu{b}"
        out.append(PairBandwidth(source, a, b, size_bytes / seconds / 1e9, "GB/s", "uni", peer))
        out.append(PairBandwidth(source, a, b, latency * 1e6, "us", "uni", peer))
    return out


def gemm_tflops(gpu: int, dtype: str = "bf16", n: int = 8192) -> Measurement | None:
    """Dense n x n x n matrix multiply: 2 n^3 flops per call. fp8 only where the GPU has it."""
    import torch

    with torch.cuda.device(gpu):
        if dtype == "fp8":
            if torch.cuda.get_device_capability(gpu) < (8, 9) or not hasattr(torch, "float8_e4m3fn"):
                return None
            a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
            b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn).t()
            one = torch.tensor(1.0, device="cuda")
            fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
        else:
            kind = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
            a = torch.randn(n, n, device="cuda", dtype=kind)
            b = torch.randn(n, n, device="cuda", dtype=kind)
            fn = lambda: a @ b  # noqa: E731
        seconds = time_cuda(fn, warmup=5, repeats=10)
    return Measurement(f"{SOURCE}:gemm:{dtype}:gpu{gpu}", "gemm_tflops", 2 * n**3 / seconds / 1e12, "TFLOP/s",
                       "median", gpu=gpu, dtype=dtype, size_bytes=n)


def gemv(gpu: int, hidden: int = 8192, out_features: int = 8192 * 3, batches=(1, 8, 32)) -> list[Measurement]:
    """Decode-shaped matmuls (a few tokens x a big weight): bound by reading the weight from HBM.

    Reported as the weight bytes streamed per second, to compare with the HBM copy figure.
    """
    import torch

    out = []
    with torch.cuda.device(gpu):
        weight = torch.randn(out_features, hidden, device="cuda", dtype=torch.bfloat16)
        for batch in batches:
            x = torch.randn(batch, hidden, device="cuda", dtype=torch.bfloat16)
            seconds = time_cuda(lambda: torch.nn.functional.linear(x, weight), warmup=5, repeats=20, inner=10)
            out.append(Measurement(f"{SOURCE}:gemv:b{batch}:gpu{gpu}", "gemv_gbs",
                                   weight.numel() * 2 / seconds / 1e9, "GB/s", "median", batch=batch,
                                   gpu=gpu, dtype="bf16", size_bytes=weight.numel() * 2))
    return out


def pcie_under_load(session, fact: GpuFact, seconds: float = 1.0) -> GpuFact:
    """Re-read a GPU's PCIe link while it copies to and from the host: idle GPUs down-train to
    Gen1 to save power, so only a reading under load says whether the link is degraded."""
    import threading

    import torch

    gpu = fact.index
    stop = threading.Event()

    def load():
        with torch.cuda.device(gpu):
            host = torch.empty(64 << 20, dtype=torch.uint8, pin_memory=True)
            dev = torch.empty_like(host, device="cuda")
            while not stop.is_set():
                dev.copy_(host, non_blocking=True)
                torch.cuda.synchronize()

    worker = threading.Thread(target=load, daemon=True)
    worker.start()
    time.sleep(seconds)
    try:
        return reread_under_load(session, fact)
    finally:
        stop.set()
        worker.join(10)


def reread_under_load(session, fact: GpuFact) -> GpuFact:
    """The GpuFact with its PCIe link as read under load (live while loaded, or a recording)."""
    gpu = fact.index
    gen = session.get("nvml", "nvmlDeviceGetCurrPcieLinkGeneration", gpu, tag="under_load")
    width = session.get("nvml", "nvmlDeviceGetCurrPcieLinkWidth", gpu, tag="under_load")
    if gen is None and width is None:
        return fact
    fact.pcie_gen_current = gen if gen is not None else fact.pcie_gen_current
    fact.pcie_width_current = width if width is not None else fact.pcie_width_current
    fact.pcie_read_under_load = True
    fact.source += " (PCIe link read under load)"
    return fact
