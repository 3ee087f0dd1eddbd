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


def hbm_bandwidth(gpu: int, size_bytes: int = 1 << 30, device: int | None = None) -> Measurement:
    """Device-to-device copy: each byte is read once and written once, so 2 x size / time.

    `gpu` is the NVML index the record carries; `device` the CUDA ordinal (they differ under
    CUDA_VISIBLE_DEVICES), the same when not given."""
    import torch

    with torch.cuda.device(_dev(gpu, device)):
        bufs = [torch.empty(size_bytes, dtype=torch.uint8, device="cuda")]
        bufs.append(torch.empty_like(bufs[0]))
        seconds = time_cuda(lambda: bufs[1].copy_(bufs[0]))
        bufs.clear()
    return Measurement(f"{SOURCE}:hbm:gpu{gpu}", "hbm_gbs", 2 * size_bytes / seconds / 1e9, "GB/s",
                       stat="median", gpu=gpu, size_bytes=size_bytes)


def host_copies(gpu: int, size_bytes: int = 256 << 20, device: int | None = None) -> list[Measurement]:
    """Pinned host memory to and from the GPU (what PCIe and the CPU root port deliver)."""
    import torch

    with torch.cuda.device(_dev(gpu, device)):
        host = torch.empty(size_bytes, dtype=torch.uint8, pin_memory=True)
        dev = torch.empty(size_bytes, dtype=torch.uint8, device="cuda")
        h2d = time_cuda(lambda: dev.copy_(host, non_blocking=True))
        d2h = time_cuda(lambda: host.copy_(dev, non_blocking=True))
    return [Measurement(f"{SOURCE}:h2d:gpu{gpu}", "h2d_gbs", size_bytes / h2d / 1e9, "GB/s", "median",
                        gpu=gpu, size_bytes=size_bytes),
            Measurement(f"{SOURCE}:d2h:gpu{gpu}", "d2h_gbs", size_bytes / d2h / 1e9, "GB/s", "median",
                        gpu=gpu, size_bytes=size_bytes)]


def single_gpu(gpu: int, device: int, dtypes=("bf16",)) -> list[Measurement]:
    """HBM copy, GEMM per dtype and decode GEMV on one GPU (one spawned process runs them)."""
    return ([hbm_bandwidth(gpu, device=device)] + [gemm_tflops(gpu, d, device=device) for d in dtypes]
            + gemv(gpu, device=device))


def p2p_matrix(gpus: list[int], devices: list[int] | None = None, size_bytes: int = 256 << 20) -> list[PairBandwidth]:
    """Per ordered GPU pair: unidirectional copy bandwidth, one small copy's latency; per pair:
    bidirectional bandwidth (both directions at once on two streams), as p2pBandwidthLatencyTest.

    Peer access is enabled where CUDA allows it (p2p_enabled says which); elsewhere the copy
    goes through the host, as p2pBandwidthLatencyTest's P2P=Disabled matrix does."""
    import torch

    devices = devices or list(gpus)
    cuda = dict(zip(gpus, devices))
    out = []
    for a, b in itertools.permutations(gpus, 2):
        peer = bool(torch.cuda.can_device_access_peer(cuda[a], cuda[b]))
        src = torch.empty(size_bytes, dtype=torch.uint8, device=f"cuda:{cuda[a]}")
        dst = torch.empty(size_bytes, dtype=torch.uint8, device=f"cuda:{cuda[b]}")
        with torch.cuda.device(cuda[a]):
            seconds = time_cuda(lambda dst=dst, src=src: dst.copy_(src, non_blocking=True), repeats=5)
            latency = copy_latency(torch, src[:4], dst[:4])
        source = f"{SOURCE}:p2p:gpu{a}->gpu{b}"
        out.append(PairBandwidth(source, a, b, size_bytes / seconds / 1e9, "GB/s", "uni", peer))
        out.append(PairBandwidth(source, a, b, latency * 1e6, "us", "uni", peer))
        src = dst = None  # freed before the next pair allocates
        if a < b:
            seconds = _bidirectional(torch, cuda[a], cuda[b], size_bytes)
            out.append(PairBandwidth(f"{SOURCE}:p2p:gpu{a}<->gpu{b}", a, b, 2 * size_bytes / seconds / 1e9,
                                     "GB/s", "bi", peer))
    return out


def copy_latency(torch, src, dst, copies: int = 100) -> float:
    """Seconds per small copy as the GPU executes them: the copies are captured once in a CUDA
    graph and replayed, so the host's launch rate does not enter (timing a Python loop would).
    Where the copy cannot be captured (no peer access: the driver stages it through the host),
    each copy is timed alone between two events instead."""
    try:
        return _graph_copy_latency(torch, src, dst, copies)
    except RuntimeError:
        return time_cuda(lambda: dst.copy_(src, non_blocking=True), warmup=3, repeats=50)


def _graph_copy_latency(torch, src, dst, copies: int) -> float:
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        dst.copy_(src, non_blocking=True)
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(copies):
            dst.copy_(src, non_blocking=True)
    return time_cuda(graph.replay, warmup=2, repeats=10) / copies


def _bidirectional(torch, a: int, b: int, size_bytes: int) -> float:
    """Seconds for an a->b and a b->a copy of `size_bytes` each, running at once on two streams."""
    a_out, a_in = (torch.empty(size_bytes, dtype=torch.uint8, device=f"cuda:{a}") for _ in range(2))
    b_out, b_in = (torch.empty(size_bytes, dtype=torch.uint8, device=f"cuda:{b}") for _ in range(2))
    s_a, s_b = torch.cuda.Stream(device=a), torch.cuda.Stream(device=b)
    samples = []
    for n in range(8):
        torch.cuda.synchronize(a)
        torch.cuda.synchronize(b)
        begin = time.perf_counter()
        with torch.cuda.stream(s_a):
            b_in.copy_(a_out, non_blocking=True)
        with torch.cuda.stream(s_b):
            a_in.copy_(b_out, non_blocking=True)
        s_a.synchronize()
        s_b.synchronize()
        if n >= 2:  # the first runs warm up the peer mappings
            samples.append(time.perf_counter() - begin)
    return statistics.median(samples)


def gemm_tflops(gpu: int, dtype: str = "bf16", n: int = 8192, device: int | None = None) -> Measurement | None:
    """Dense n x n x n matrix multiply: 2 n^3 flops per call. fp8 only where the GPU has it.

    size_bytes is what the call touches: A and B read, C written (3 n^2 elements)."""
    import torch

    dev = _dev(gpu, device)
    with torch.cuda.device(dev):
        if dtype == "fp8":
            if torch.cuda.get_device_capability(dev) < (8, 9) or not hasattr(torch, "float8_e4m3fn"):
                return None
            a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
            b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn).t()
            one = torch.tensor(1.0, device="cuda")
            fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
            touched = 2 * n * n * 1 + n * n * 2
        else:
            kind = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
            a = torch.randn(n, n, device="cuda", dtype=kind)
            b = torch.randn(n, n, device="cuda", dtype=kind)
            fn = lambda: a @ b  # noqa: E731
            touched = 3 * n * n * 2
        seconds = time_cuda(fn, warmup=5, repeats=10)
    return Measurement(f"{SOURCE}:gemm:{dtype}:n{n}:gpu{gpu}", "gemm_tflops", 2 * n**3 / seconds / 1e12, "TFLOP/s",
                       "median", gpu=gpu, dtype=dtype, size_bytes=touched)


def gemv(gpu: int, hidden: int = 8192, out_features: int = 8192 * 3, batches=(1, 8, 32),
         device: int | None = None) -> list[Measurement]:
    """Decode-shaped matmuls (a few tokens x a big weight): bound by reading the weight from HBM.

    Reported as the weight bytes streamed per second, to compare with the HBM copy figure.
    """
    import torch

    out = []
    with torch.cuda.device(_dev(gpu, device)):
        weight = torch.randn(out_features, hidden, device="cuda", dtype=torch.bfloat16)
        for batch in batches:
            x = torch.randn(batch, hidden, device="cuda", dtype=torch.bfloat16)
            seconds = time_cuda(lambda x=x: torch.nn.functional.linear(x, weight), warmup=5, repeats=20, inner=10)
            out.append(Measurement(f"{SOURCE}:gemv:b{batch}:gpu{gpu}", "gemv_gbs",
                                   weight.numel() * 2 / seconds / 1e9, "GB/s", "median", batch=batch,
                                   gpu=gpu, dtype="bf16", size_bytes=weight.numel() * 2))
    return out


L2_ROTATION_BYTES = 512 << 20  # weights one shape cycles through: ten times an H100/H200's 50 MB L2


def weight_gemm_us(m: int, n: int, k: int, dtype: str = "bf16", device: int = 0) -> float | None:
    """Microseconds of one weight GEMM (m tokens x an n x k weight, y = x W^T as a linear layer
    runs it) as a CUDA-graphed step runs it: back to back inside a graph, so no host launch gap
    enters, each on another copy of the weight so it comes from HBM, not from L2, as a step that
    walks every layer's own weights reads it. fp8: per-tensor scales, bf16 out (torch._scaled_mm);
    None where this GPU or torch cannot run it."""
    import torch

    fp8 = dtype == "fp8"
    if fp8 and (torch.cuda.get_device_capability(device) < (8, 9) or not hasattr(torch, "float8_e4m3fn")):
        return None
    size = 1 if fp8 else 2
    copies = max(2, min(64, -(-L2_ROTATION_BYTES // (n * k * size))))
    with torch.cuda.device(device):
        kind = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp8": torch.bfloat16}[dtype]
        weights = torch.randn(copies, n, k, device="cuda", dtype=kind)
        x = torch.randn(m, k, device="cuda", dtype=kind)
        if fp8:
            weights, x = weights.to(torch.float8_e4m3fn), x.to(torch.float8_e4m3fn)
            one = torch.tensor(1.0, device="cuda")
            step = lambda i: torch._scaled_mm(x, weights[i].t(), scale_a=one, scale_b=one,  # noqa: E731
                                              out_dtype=torch.bfloat16)
        else:
            out = torch.empty(m, n, device="cuda", dtype=kind)
            step = lambda i: torch.mm(x, weights[i].t(), out=out)  # noqa: E731
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):  # cuBLAS picks and warms its kernel outside the capture
            for i in range(copies):
                step(i)
        torch.cuda.current_stream().wait_stream(stream)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for i in range(copies):
                step(i)
        seconds = time_cuda(graph.replay, warmup=2, repeats=5)
        graph = weights = x = None
        torch.cuda.empty_cache()
    return seconds / copies * 1e6


def _dev(gpu: int, device: int | None) -> int:
    return gpu if device is None else device


LOAD_START_S = 60.0  # a cold GPU needs seconds (tens on big nodes) to create its CUDA context
LOAD_SETTLE_S = 1.0  # copies running this long before the read: the link has left its idle state


def pcie_under_load(session, fact: GpuFact, device: int | None = None) -> GpuFact:
    """Re-read a GPU's PCIe link while it copies to and from the host: idle GPUs down-train to
    Gen1 to save power, so only a reading under load says whether the link is degraded.

    The copies run in a spawned process that says when they are running; the link is read only
    then, and the process is killed afterwards. If the copies never start (no CUDA, an error, a
    hang), the reading is not taken and the error is raised: nothing is labelled under load."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    running, stop, errors = ctx.Event(), ctx.Event(), ctx.Queue()
    proc = ctx.Process(target=_copy_loop, args=(_dev(fact.index, device), running, stop, errors), daemon=True)
    proc.start()
    try:
        deadline = time.monotonic() + LOAD_START_S
        while not running.is_set() and proc.is_alive() and time.monotonic() < deadline:
            running.wait(0.2)
        if not running.is_set():
            time.sleep(0.5)  # a process that just died may still be flushing its error
            why = errors.get_nowait() if not errors.empty() else f"not running after {LOAD_START_S:g} s"
            raise RuntimeError(f"the host copies on GPU{fact.index} did not start ({why}); link not read under load")
        time.sleep(LOAD_SETTLE_S)
        if not proc.is_alive():
            raise RuntimeError(f"the host copies on GPU{fact.index} stopped before the link was read")
        return reread_under_load(session, fact)
    finally:
        stop.set()
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join(5)


def _copy_loop(device: int, running, stop, errors) -> None:
    try:
        import torch

        with torch.cuda.device(device):
            host = torch.empty(64 << 20, dtype=torch.uint8, pin_memory=True)
            dev = torch.empty_like(host, device="cuda")
            while not stop.is_set():
                dev.copy_(host, non_blocking=True)
                host.copy_(dev, non_blocking=True)
                torch.cuda.synchronize()
                running.set()
    except BaseException as exc:  # noqa: BLE001 - the parent reports it
        errors.put(f"{type(exc).__name__}: {exc}")


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
