"""Host-to-GPU copy rates in a ticket (rules/ticket_numbers.host_copy_figure) and the units they come in
(diagnose/artifacts/text.RATE_UNIT/to_gbs, rules/claims.bandwidth_figures and bandwidth_test_rates). The issues
are paraphrases of a user-tester's reports, not corpus tickets."""

import pytest
from test_ticket_figures import _issue

from diagnose.artifacts.text import to_gbs
from diagnose.evidence import Facts, Measurement, Note
from rules import claims


def _host(findings):
    return [f for f in findings if f.rule == "ticket.host_copy_figure"]


@pytest.mark.parametrize("unit,gbs", [("Gbit/s", 100), ("Gbits/s", 100), ("Gb/s", 100), ("Gbps", 100),
                                      ("GBytes/s", 800), ("Gbyte/s", 800), ("GB/s", 800), ("MB/s", 0.8)])
def test_rate_units_spelled_out_keep_bits_and_bytes_apart(unit, gbs):
    assert to_gbs(800, unit) == pytest.approx(gbs)


def test_a_busbw_in_gbit_per_second_is_an_eighth_of_the_gb_figure():
    for unit, gbs in (("Gbit/s", 110.0), ("GB/s", 880.0)):
        facts, _, _ = _issue(f"# all_reduce on a DGX H100\nOn 8x H100 SXM all_reduce_perf -g 8 gives busbw 880 {unit} "
                             "at 4G. Is this normal?\n")
        assert [m.value for m in facts.of(Measurement) if m.metric == "busbw_gbs"] == [gbs]


@pytest.mark.parametrize("sentence,value", [
    ("p2pBandwidthLatencyTest shows 2000 Gbit/s unidirectional between GPU0 and GPU1.", 250.0),
    ("Our host to device copies reach 22000 MB/s.", 22.0),
    ("The copy bandwidth is 20 GBytes/s.", 20.0),
])
def test_bandwidth_figures_in_other_units_are_read_in_gb_per_second(sentence, value):
    assert [f.data["value"] for f in claims.bandwidth_figures(_said(sentence))] == [value]


def test_a_network_line_rate_in_bits_is_no_gpu_bandwidth_figure():
    facts = _said("Each node has a 400 Gb/s NDR InfiniBand port and the bandwidth is fine.")
    assert claims.bandwidth_figures(facts) == []


def _said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:2", "description", text))
    return facts


BWTEST = """# H2D on A100 PCIe
Ran bandwidthTest on the A100 PCIe:

```
 Host to Device Bandwidth, 1 Device(s)
 {memory} Memory Transfers
   Transfer Size (Bytes)	Bandwidth({unit})
   32000000			{h2d}

 Device to Host Bandwidth, 1 Device(s)
 {memory} Memory Transfers
   Transfer Size (Bytes)	Bandwidth({unit})
   32000000			{d2h}
```
Is this normal?
"""


def test_bandwidth_tests_table_is_read_in_its_headers_unit():
    facts, findings, verdict = _issue(BWTEST.format(memory="PINNED", unit="GB/s", h2d="24.9", d2h="26.1"))
    rates = {c.data["direction"]: (c.data["value"], c.data["memory"]) for c in claims.bandwidth_test_rates(facts)}
    assert rates == {"h2d": (24.9, "pinned"), "d2h": (26.1, "pinned")}
    (f,) = _host(findings)
    assert f.category == "expected_physics" and verdict.category == "expected_physics"
    facts, _, _ = _issue(BWTEST.format(memory="PINNED", unit="MB/s", h2d="24900.0", d2h="26100.0"))
    assert sorted(c.data["value"] for c in claims.bandwidth_test_rates(facts)) == [24.9, 26.1]


def test_a_slow_pinned_copy_is_a_degraded_link_and_a_slow_pageable_one_the_host():
    _, findings, verdict = _issue(BWTEST.format(memory="PINNED", unit="MB/s", h2d="6200.0", d2h="6500.0"))
    (f,) = _host(findings)
    assert (f.category, f.severity, verdict.category) == ("pcie_link_degraded", "warning", "pcie_link_degraded")
    assert "GPU Link Info" in f.fix
    _, findings, _ = _issue(BWTEST.format(memory="PAGEABLE", unit="MB/s", h2d="6200.0", d2h="6500.0"))
    (f,) = _host(findings)
    assert f.category == "host_bound"


def test_a_slow_copy_without_the_memory_kind_leans_on_the_link_and_says_what_decides():
    _, findings, _ = _issue("# H2D\nOn our H100 SXM, cudaMemcpy host to device gives 9 GB/s. Is this normal?\n")
    (f,) = _host(findings)
    assert f.category == "pcie_link_degraded" and f.confidence < 0.5
    assert any("pinned or pageable decides" in str(e.measured) for e in f.evidence)


def test_a_host_copy_above_the_line_rate_is_an_impossible_figure():
    _, findings, verdict = _issue("# H2D\nbandwidthTest on our A100 PCIe shows host to device 38 GB/s. "
                                  "Is this normal?\n")
    (f,) = _host(findings)
    assert (f.category, f.severity) == ("other", "warning") and "more than" in f.title
    _, findings, _ = _issue("# H2D\nbandwidthTest on our A100 PCIe shows host to device 24 GB/s. Is this normal?\n")
    assert _host(findings)[0].category == "expected_physics"
