"""NCCL inside one NVSwitch node (rules.collectives.nccl): NVLS (nvls_fill_us) with its bytes at an algbw that does not
change with the rank count and its kernel's three-stage chunk pipeline, and from Hopper the ring as NCCL's own tuner
prices each protocol (nvlink_ring; src/device/all_reduce.h, src/enqueue.cc and src/graph/tuning.cc of
https://github.com/NVIDIA/nccl), against the published tables of tests/data/collectives they were not derived from
(vidur's DGX H100 at 4 and 8 GPUs) and dgxc-benchmarking's DGX H100, whose 16 GiB row sets NVLS's rate."""

from pathlib import Path

import pytest

from diagnose import published
from rules import catalog, collectives

COLLECTIVES = Path(__file__).parent / "data" / "collectives"
MIB = 1 << 20


def rows(name: str) -> list[published.CollectiveRow]:
    return published.read_collectives(COLLECTIVES / name)


def test_nvls_takes_as_long_on_4_gpus_as_on_8_as_vidurs_dgx_h100_measures():
    """NVLS moves each byte across a GPU's links once each way whatever the rank count, so 64 MiB takes about as long
    on 4 GPUs as on 8: vidur's DGX H100 (https://github.com/microsoft/vidur/blob/7d47513363ec447a741ac5e47241580b47724fbf/
    data/profiling/network/h100_dgx/all_reduce.csv) measures 318 us and 322 us. A busbw constant in the rank count (the
    model before: 220 us on 4 GPUs, 257 on 8) makes 4 GPUs 14 % faster than 8 and both 20-31 % faster than measured."""
    at = {r.gpus: r for r in rows("vidur-h100-dgx-all-reduce.csv") if r.size_bytes == 64 * MIB and r.gpus in (4, 8)}
    assert at[4].time_us == pytest.approx(at[8].time_us, rel=0.02)
    got = {n: collectives.nccl_for(catalog.gpu("h100-sxm"), catalog.interconnect("nvswitch3"), n, 64 * MIB,
                                   graphs=False) for n in (4, 8)}
    assert {t.impl for t in got.values()} == {"NCCL NVLS"}
    assert got[4].us >= 0.88 * got[8].us  # the bytes alike; 4 GPUs' fill is half 8's (64 operations, not 128)
    for n in (4, 8):
        assert got[n].us == pytest.approx(at[n].time_us, rel=0.12)


def test_dgx_h100_nccl_tests_from_16_mib_up_sit_within_a_tenth_of_the_model():
    """dgxc-benchmarking's 8x H100 all_reduce_perf sample
    (tests/data/collectives/nccltests-h100-dgx-8gpu-dgxc-sample.csv,
    https://github.com/NVIDIA/dgxc-benchmarking/blob/841f5466cd86b66abd48049e839c563776f6d716/nccl/README.md) reaches
    480 GB/s busbw only at 8-16 GiB: from 16 MiB to 512 MiB its NVLS carries a pipeline fill of 40-120 us beyond its
    bytes, which the model without the fill missed by up to 40 % (16 MiB: 74 us expected, 124 measured)."""
    table = [r for r in rows("nccltests-h100-dgx-8gpu-dgxc-sample.csv") if r.size_bytes >= 16 * MIB]
    assert len(table) == 11
    for r in table:
        assert published.expect_collective(r)[0] == pytest.approx(r.time_us, rel=0.17), r.size_bytes
    mid = [r for r in table if r.size_bytes <= 512 * MIB]
    errors = sorted(published.expect_collective(r)[0] / r.time_us - 1 for r in mid)
    assert abs(errors[len(errors) // 2]) < 0.1


def test_the_fill_is_two_passes_of_the_chunk_enqueue_cc_picks():
    """By hand: 8 GPUs of an H100 node run 16 NVLS channels x 8 heads = 128 operations; the chunk is 128 KiB from 1 GiB
    (64 x 128 x 128 KiB), 64 KiB below it, 32 KiB below 64 MiB (8 x 128 x 64 KiB), 16 KiB below 8 MiB (2 x 128 x
    32 KiB); the fill is two passes of 128 chunks (scatter, reduce, gather: three stages), never more than the message
    twice. NCCL 2.17 had no cuts and moved the Simple chunk (512 KiB)."""
    t = catalog.nccl_tuning()
    alg = 275e3  # B/us
    for size, chunk in ((2048 * MIB, 131072), (1024 * MIB, 131072), (1023 * MIB, 65536), (64 * MIB, 65536),
                        (63 * MIB, 32768), (8 * MIB, 32768), (7 * MIB, 16384)):
        assert collectives.nvls_fill_us(t, size, 8, 9.0, alg) == pytest.approx(2 * 128 * chunk / alg), size
    assert collectives.nvls_fill_us(t, 1 * MIB, 8, 9.0, alg) == pytest.approx(2 * MIB / alg)
    old = catalog.nccl_tuning("2.17.1")
    assert collectives.nvls_fill_us(old, 63 * MIB, 8, 9.0, alg) == pytest.approx(2 * 63 * MIB / alg)
    # 4 GPUs: 64 operations, so 64 MiB is past 8 x 64 x 64 KiB (32 MiB) and keeps 64 KiB
    assert collectives.nvls_fill_us(t, 64 * MIB, 4, 9.0, alg) == pytest.approx(2 * 64 * 65536 / alg)


def test_nvls_stays_above_the_switchs_roofline_at_every_size():
    """The roofline on an NVSwitch that reduces is one hop and the message at line rate: NVLS's expected time, with its
    fill, is above it at every size and rank count the model runs NVLS at."""
    ic = catalog.interconnect("nvswitch3")
    for n in (3, 4, 8):
        for size in (2 ** k for k in range(3, 35)):
            t = collectives.nccl(ic, n, size, only="nvls", cc=9.0)
            assert t.us > collectives.roofline_us(ic, n, size), (n, size)


def test_hopper_rings_take_nccls_own_per_protocol_model_as_a_dgx_h100_measures():
    """On 8 H100 of one node NCCL's tuner (tuning.cc [R8]) puts a ring at 6.6 + 14 x 0.6 = 15.0 us under LL, its bytes
    at half the bus but no more than 141 GB/s (llMaxBws, Hopper, one node, from 2.21.5), LL128 at 14 + 14 x 1.9 us and
    0.92 of the bus: 15.0 / 28.0 / 41.0 us at 8 B / 1 MiB / 2 MiB (LL), LL128 from 4 MiB. dgxc-benchmarking's
    all_reduce_perf on a DGX H100 measures 13.7 / 27.4 / 42.2 us (nccltests-h100-dgx-8gpu-dgxc-sample.csv). NCCL
    2.20.5 capped Hopper's LL at Ampere's 87.7 GB/s: 1 MiB then 35.9 us."""
    t = catalog.nccl_tuning()
    bus = catalog.interconnect("nvswitch3").achieved_gbs * 1e3
    measured = {r.size_bytes: r.time_us for r in rows("nccltests-h100-dgx-8gpu-dgxc-sample.csv")}
    for size, by_hand, proto in ((8, 15.0, "LL"), (MIB, 6.6 + 8.4 + 1.75 * MIB / 141e3, "LL"),
                                 (2 * MIB, 15.0 + 3.5 * MIB / 141e3, "LL"), (4 * MIB, 40.6 + 7 * MIB / (0.92 * bus),
                                                                               "LL128")):
        ring, estimate = collectives.nvlink_ring(t, 8, size, 9.0, bus, 0.0)
        assert (ring.protocol, estimate) == (proto, pytest.approx(by_hand, rel=1e-3)), size
        if size <= 2 * MIB:
            assert estimate == pytest.approx(measured[size], rel=0.1), size
    _, old = collectives.nvlink_ring(catalog.nccl_tuning("2.20.5"), 8, MIB, 9.0, bus, 0.0)
    assert old == pytest.approx(15.0 + 1.75 * MIB / 87.7e3, rel=1e-3)


def test_before_hopper_the_ring_keeps_the_fitted_nvlink_step():
    """tuning.cc's NVLink step (0.47-0.6 us) is a third of what an A100 node measures: 8 B on a DGX A100 ring with one
    channel takes 10 us on 2 GPUs and 33.7 on 8, ~2 us a step ([R11], https://github.com/NVIDIA/nccl-tests/issues/123).
    An A100 ring keeps calibration.toml's fitted step; an H100's takes NCCL's own, about half the A100's at 8 GPUs."""
    c = catalog.calibration().nccl
    a100 = collectives.nccl(catalog.interconnect("nvswitch2"), 8, 8, cc=8.0)
    assert a100.us == pytest.approx(c["base_us"] + 14 * c["hop_us_nvlink"] + 1.75 * 8 / 235e3, rel=1e-3)
    assert 33.7 / 3 < a100.us < 33.7 * 1.2
    h100 = collectives.nccl(catalog.interconnect("nvswitch3"), 8, 8, cc=9.0)
    assert (h100.protocol, h100.us) == ("LL", pytest.approx(15.0, rel=1e-3))
