"""Issue 11 (p2p42): P2P refusals in real first posts, and one reading that missed one.

- claims no_p2p reads nvbandwidth's peer-test waiver ("Waiving device_to_device_memcpy_write_ce."): every
  device_to_device_*, all_to_one_* and one_to_all_* test runs only where a GPU pair passes cuDeviceCanAccessPeer
  (Testcase::filterHasAccessiblePeerPairs, NVIDIA/nvbandwidth testcase.h / testcase.cpp). Host tests are not filtered
  on peers, so their names do not count.

Real first posts under tests/data/p2p42 (URLs, settled answers and blind verdicts in its SOURCES.md); the tickets
below marked "probe" are my own sentences testing the reading, with hearsay, a question and near misses.
"""

import re
from pathlib import Path

import pytest
from conftest import report_json

from rules.claims import PATTERNS

DATA = Path(__file__).parent / "data" / "p2p42"

_RUNNING = """# nvbandwidth on two RTX A4000

```
Device 0: NVIDIA RTX A4000
Device 1: NVIDIA RTX A4000

Running device_to_device_memcpy_read_ce.
memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)
           0         1
 0       N/A     24.10
 1     24.12       N/A
```
"""


def _ticket(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "ticket.md"
    path.write_text(text)
    return report_json("ticket", str(path))


@pytest.mark.parametrize("paste", ["nvbandwidth13.md", "okm13_smallbar.md", "msswift3299.md"])
def test_real_first_posts(paste):
    # nvbandwidth13 was insufficient_data before this pass; the other two were already right
    assert report_json("ticket", str(DATA / paste))["verdict"]["category"] == "p2p_disabled"


def test_nvbandwidth_waiver_is_the_refusal_rule():
    report = report_json("ticket", str(DATA / "nvbandwidth13.md"))
    assert report["verdict"]["category"] == "p2p_disabled"
    assert any(f["rule"] == "ticket.p2p_refused" for f in report["findings"])


@pytest.mark.parametrize("line", [
    "Waiving device_to_device_memcpy_write_ce.",
    "Waiving device_to_device_bidirectional_memcpy_read_sm.",
    "Waiving all_to_one_write_ce.",
    "Waiving one_to_all_read_ce.",
])
def test_waiver_lines_read(line):
    assert any(re.search(p, line, re.I) for p in PATTERNS["no_p2p"])


@pytest.mark.parametrize("line", [
    "Waiving host_device_latency_sm.",                      # probe: a host test, not filtered on peers
    "Running device_to_device_memcpy_read_ce.",             # probe: the peer test ran
    "I am waiving device_to_device_memcpy_write_ce for now",  # probe: the reporter's own choice, prose
])
def test_waiver_near_misses_not_read(line):
    assert not any(re.search(p, line, re.I) for p in PATTERNS["no_p2p"])


def test_probe_peer_test_ran(tmp_path):
    # probe: nvbandwidth measured the peer copies, nothing refused
    assert _ticket(tmp_path, _RUNNING)["verdict"]["category"] != "p2p_disabled"


def test_probe_hearsay(tmp_path):
    # probe: the waiver quoted as something read, before running anything
    text = ("# question about nvbandwidth\n\nI read that nvbandwidth prints "
            "\"Waiving device_to_device_memcpy_write_ce.\" when P2P is off. Is that true? "
            "My two L40S run fine, I have not run it yet.\n")
    assert _ticket(tmp_path, text)["verdict"]["category"] != "p2p_disabled"


def test_probe_host_test_waived(tmp_path):
    # probe: a single GPU, nvbandwidth skipping a host test
    text = ("# nvbandwidth\n\nOn one GPU nvbandwidth printed Waiving host_device_latency_sm. and nothing else, is the "
            "tool broken? Single RTX 4090.\n")
    assert _ticket(tmp_path, text)["verdict"]["category"] != "p2p_disabled"
