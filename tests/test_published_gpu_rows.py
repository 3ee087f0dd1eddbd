"""The GPU a published table names and the catalog row it is priced with (issue 10, session 18 review): the HBM rates
its comments quote are the catalog's (../shared/docs/gpu-specs.md), and where the source leaves the board open, the
boards it could be resolve to their own rows and the physics the comments use to pick one holds."""

import dataclasses
import re
from pathlib import Path

from diagnose import published
from rules import catalog

PUBLISHED = Path(__file__).parent / "data" / "published"
TT143 = PUBLISHED / "vllm-tt143-qwen2.5-72b-h100-tp2-c1.csv"  # https://github.com/tenstorrent/tt-inference-server/issues/143
TT340 = (PUBLISHED / "vllm-tt340-qwen3-1.7b-a100-c1.csv", PUBLISHED / "vllm-tt340-qwen3-30b-a3b-a100-c1.csv")


def test_the_a100_rows_hold_the_hbm_rates_of_the_gpu_specs():
    """gpu-specs.md: A100 40GB SXM4 1,555 GB/s, 80GB SXM4 2,039, 80GB PCIe 1,935 [S6]."""
    assert {k: catalog.gpu(k).hbm_gbs for k in ("a100-40gb", "a100-80gb-sxm", "a100-pcie")} == {
        "a100-40gb": 1555, "a100-80gb-sxm": 2039, "a100-pcie": 1935}
    assert catalog.gpu("a100-pcie").memory_gb == catalog.gpu("a100-80gb-sxm").memory_gb == 80


def test_tt340_quotes_the_catalogs_a100_rates_and_its_40gb_board_would_be_a_third_slower_to_stream():
    """tenstorrent/tt-inference-server issue 340 (https://github.com/tenstorrent/tt-inference-server/issues/340) says
    "A100" only; both tables are priced as the 80 GB SXM. Every HBM rate their comments quote is an A100 row's (GB/s
    as written, TB/s to two decimals), and the 1.7B table's comment that the 40 GB board would change its figure
    holds: at batch 1 the roofline streams the weights, 2,039 / 1,555 = 1.31x longer on the 40 GB board."""
    rates = {g.hbm_gbs for g in catalog.gpus().values() if g.name.startswith("A100")}
    for path in TT340:
        rows = published.read(path)
        assert {catalog.gpu(r.gpu).key for r in rows} == {"a100-80gb-sxm"}
        comments = " ".join(ln for ln in path.read_text().splitlines() if ln.startswith("#"))
        quoted = [float(n.replace(",", "")) for n in re.findall(r"(\d[\d,]*) (?:GB/s|on the)", comments)
                  if "," in n] + [1000 * float(n) for n in re.findall(r"(\d\.\d+) TB/s", comments)]
        assert quoted, path.name
        assert all(any(abs(q - r) <= 5 for r in rates) for q in quoted), (path.name, quoted)
    for row in published.read(TT340[0]):
        floors = [published.expect(dataclasses.replace(row, gpu=g)).roofline for g in ("a100-40gb", "a100-80gb-sxm")]
        assert 1.25 < floors[0] / floors[1] <= 2039 / 1555 + 0.01


def test_tt143_two_h100_are_the_sxm_row_and_an_nvl_pair_resolves_to_its_own():
    """tenstorrent/tt-inference-server issue 143 names '2xH100'. The table is priced as H100 SXM (3.35 TB/s, 80 GB,
    NVSwitch); an H100 NVL is a PCIe board paired by NVLink bridges with 94 GB of HBM3 at 3.9 TB/s (gpu-specs.md), and
    every spelling of it resolves to that row, not the SXM's nor the H100 PCIe's (2.0 TB/s). The comment's physics
    picks between them: the PCIe card's roofline is slower than every measured TPOT (ruled out), the SXM's and the NVL
    pair's faster (both possible)."""
    rows = published.read(TT143)
    assert {catalog.gpu(r.gpu).key for r in rows} == {"h100-sxm"}
    assert catalog.resolve_gpu("2xH100").key == "h100-sxm"
    sxm = catalog.gpu("h100-sxm")
    assert (sxm.hbm_gbs, sxm.memory_gb, sxm.nvlink_bridged, sxm.interconnect) == (3350, 80, False, "nvswitch3")
    for spelling in ("H100 NVL", "2xH100 NVL", "2 x H100 NVL", "NVIDIA H100 NVL", "H100 NVL 94GB", "h100-nvl"):
        assert catalog.resolve_gpu(spelling).key == "h100-nvl", spelling
    nvl = catalog.gpu("h100-nvl")
    assert (nvl.hbm_gbs, nvl.memory_gb, nvl.nvlink_bridged, nvl.nvlink_domain, nvl.pcie_gen) == (3900, 94, True, 2, 5)
    for spelling in ("H100 PCIe", "NVIDIA H100 PCIe", "H100 PCIe 80GB"):
        assert catalog.resolve_gpu(spelling).key == "h100-pcie", spelling
    for row in rows:
        floors = {g: published.expect(dataclasses.replace(row, gpu=g)).roofline
                  for g in ("h100-pcie", "h100-sxm", "h100-nvl")}
        assert floors["h100-pcie"] > row.value > floors["h100-sxm"] > floors["h100-nvl"], (row.input_len, floors)
