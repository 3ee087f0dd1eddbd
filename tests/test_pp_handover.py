"""A PP hand-over by NCCL send/recv takes the all-reduce's path model (rules.collectives): between GPUs without PCIe
peer-to-peer NCCL uses its SHM transport for sends as for the ring's steps, with the same hop and the host's bandwidth
(calibration.toml [nccl] shm_*), under the protocol NCCL gives a send over PCIe (LL up to 16384 bytes, Simple above).
It used to stage the bytes as a peer copy does (PCIe crossed twice), which only llama.cpp's cudaMemcpyPeerAsync does
(engines.toml pp_handover = "copy")."""

import pytest

from rules import catalog, collectives


def test_worked_example_a_bf16_hidden_state_over_pcie4_without_p2p():
    """Llama 3 70B's hidden state (8192 BF16 values, 16,384 bytes) over PCIe Gen4 (24.5 GB/s achieved), from a CUDA
    graph. A send takes LL up to NCCL_P2P_LL_THRESHOLD = 16384 bytes (NVIDIA/nccl src/enqueue.cc addP2pToPlan,
    https://github.com/NVIDIA/nccl/blob/master/src/enqueue.cc), this one included: 6.98 us fixed + 1.42 us LL hop
    + 16384 B / (24,500 B/us x 0.719 LL share) = 9.330 us. Without P2P (SHM) the bytes move at the SHM busbw of a host
    nothing is said of, 0.702 x 0.2343 x 15.75 = 2.5905 GB/s (rules.collectives.shm_busbw_gbs):
    6.98 + 1.42 x 1 + 16384 / (2,590.5 x 0.719) = 17.196 us. Staged
    as a peer copy (no NCCL protocol; PCIe crossed twice at the link's rate): 6.98 + 1.42 + 2 x 16384 / 24,500 =
    9.737 us. Four times the bytes (65,536) take Simple, though a two-rank all-reduce of that size still takes LL
    (its tuner switches near 269 KB): 6.98 + 2.36 Simple hop + 65536 / 24,500 = 12.015 us, not LL's
    6.98 + 1.42 + 65536 / (24,500 x 0.719) = 12.120 us."""
    c = catalog.calibration().nccl
    ic = catalog.interconnect("pcie4")
    # the constants the figures above were worked with
    assert (c["base_us"], c["hop_us_pcie"], c["hop_us_pcie_simple"], c["ll_bus_share"], c["shm_hop_factor"],
            c["shm_copy_share"], c["host_copy_link_share"], ic.achieved_gbs) == (6.98, 1.42, 2.36, 0.719, 1, 0.702,
                                                                                0.2343, 24.5)
    assert collectives.pcie_protocol(ic, 2, 16384) == "LL" and collectives.pcie_protocol(ic, 2, 300_000) == "Simple"
    assert collectives.p2p_us(ic, 16384) == pytest.approx(9.330, abs=1e-3)
    assert collectives.p2p_us(ic, 16384, p2p=False) == pytest.approx(17.196, abs=1e-3)
    assert collectives.p2p_us(ic, 16384, p2p=False, copy=True) == pytest.approx(9.737, abs=1e-3)
    assert collectives.pcie_protocol(ic, 2, 65536) == "LL"
    assert collectives.p2p_us(ic, 65536) == pytest.approx(12.015, abs=1e-3)


@pytest.mark.parametrize("fabric", ["pcie3", "pcie4", "pcie5", "nvlink3"])
@pytest.mark.parametrize("p2p", [True, False])
@pytest.mark.parametrize("size", [0, 16384, 8 << 20])
def test_a_send_is_one_step_of_the_two_rank_ring(fabric, p2p, size):
    """Two ranks' ring all-reduce is the fixed cost, two hops and 2(n-1)/n = 1 x the bytes: a send is the same less
    one hop, on whichever path (P2P or SHM) the all-reduce takes, at sizes where both take the same protocol (LL at
    16 KB and below, Simple at 8 MB)."""
    ic = catalog.interconnect(fabric)
    ring = collectives.nccl(ic, 2, size, p2p=p2p)
    c = catalog.calibration().nccl
    hop = collectives._pcie_step(ic, c, p2p, ring.protocol)[0] if ic.kind == "pcie" else collectives._hop_us(ic, c, p2p)
    assert ring.us - collectives.p2p_us(ic, size, p2p=p2p) == pytest.approx(hop)


def test_engines_say_how_they_hand_over(tmp_path):
    """NCCL engines default to "nccl"; a user profile naming another way is bad input (exit 2, one line)."""
    from conftest import diagnose

    assert catalog.engine("vllm").pp_handover == "nccl"
    assert {e.pp_handover for e in catalog.engines().values()} == {"nccl", "copy"}
    extra = tmp_path / "engines.toml"
    extra.write_text('[engine.mine]\nname = "mine"\ncuda_graphs = true\nkernels_per_layer = 9\nlaunch_us = 12.0\n'
                     'host_ms_per_step = 1.0\nhost_ms_per_request = 5.0\npp_handover = "memcpy"\n')
    result = diagnose("predict", "--catalog", extra, "--engine", "mine", "--model", "llama-3-8b", "--gpu", "h100-sxm")
    assert result.exit_code == 2 and "pp_handover" in result.stderr and "Traceback" not in result.stderr
