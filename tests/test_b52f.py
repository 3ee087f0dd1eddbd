"""Blind batch b52f (session s52): collectives on cloud GPU machines (tests/data/b52f/SOURCES.md gives each thread,
what it settled, the label written before the tool ran and the blind verdict).

The one mechanism found in three separate threads: aws-ofi-nccl finding no EFA device in the process, the container
or pod started without the EFA devices (aws/aws-ofi-nccl#879, #1020, #803). Only libfabric's own `fi_info` form
("fi_getinfo: -61") was a catalog row; the plugin's log says the same in its own words ("NET/OFI OFI fi_getinfo()
call failed: No data available", "NET/OFI Selected Provider is tcp"), and those tickets were insufficient_data. The
row `efa_plugin_found_no_efa` reads them where the ticket names EFA or an EFA instance.
"""

import pytest
from conftest import judged_issue, judged_kept_paste


def _row(found: dict) -> str | None:
    """The catalog row ticket.known_error names, from its evidence."""
    f = found.get("ticket.known_error")
    return f.evidence[0].detail.split("(")[1].split(",")[0] if f else None


@pytest.mark.parametrize("rel, row", [
    ("b52f/ofi1020.md", "efa_plugin_found_no_efa"),  # p5, "fi_getinfo() call failed: No data available"
    ("b52f/ofi803.md", "efa_plugin_found_no_efa"),   # "EFA on p4d + docker", "Selected Provider is tcp"
    ("ut27c/ofi879.md", "efa_device_not_visible"),   # libfabric's own "fi_getinfo: -61" keeps its row
])
def test_efa_not_visible_in_the_container_is_named(tmp_path, rel, row):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "other"
    assert _row(found) == row
    assert "/dev/infiniband/uverbs0" in found["ticket.known_error"].fix


_PLUGIN_NO_DATA = ("ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call "
                   "failed: No data available")
_PROVIDER_TCP = "6f2d8a82d208:1287:1328 [0] NCCL INFO NET/OFI Selected Provider is tcp (found 1 nics)"


@pytest.mark.parametrize("text", [
    # the same lines where the ticket names no EFA: aws-ofi-nccl over another fabric (HPE Slingshot's cxi provider,
    # nvidia/nccl#2001's GH200 nodes) or a plugin test on a workstation
    f"# aws-ofi-nccl init fails on our GH200 nodes over Slingshot 11\n\n```\n{_PLUGIN_NO_DATA}\n```\n",
    f"# testing aws-ofi-nccl on two workstations\n\n```\n{_PROVIDER_TCP}\n```\n",
    # EFA named, and the provider the plugin chose is EFA's
    "# slow all_reduce on p5.48xlarge\n\n```\nNCCL INFO NET/OFI Selected Provider is efa (found 32 nics)\n```\n",
])
def test_the_plugin_lines_without_efa_missing_name_no_efa_row(text):
    _, found = judged_issue(text)
    assert _row(found) not in ("efa_plugin_found_no_efa", "efa_device_not_visible")
