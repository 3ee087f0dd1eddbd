"""ibstatus / ibstat / ibv_devinfo: the real ticket paste, the other two layouts, fuzz."""

from artifact_fuzz import assert_survives_fuzz
from conftest import shared_path

from diagnose.artifacts import ib_status
from diagnose.evidence import HostFact, Note

ROCE = ("030-nccl-451-docker-ibv-open-device-failed-socket", "attachment2.txt")


def test_real_ibstatus_030():
    text = shared_path("tickets", *ROCE).read_text()
    assert ib_status.detect(text) >= 0.9
    records = ib_status.parse(text, "a2")
    (port,) = [r for r in records if isinstance(r, Note)]
    assert port.kind == "ib_port" and port.source == "a2:1"
    assert port.data == {"device": "mlx5_bond_0", "port": 1, "state": "ACTIVE", "phys_state": "LINKUP",
                         "rate_gbps": 25.0, "link_layer": "Ethernet"}
    hosts = {h.name: h.value for h in records if isinstance(h, HostFact)}
    assert hosts == {"ib_devices": ["mlx5_bond_0"], "ib_active_ports": 1}


def test_ibstat_and_ibv_devinfo_layouts():
    """The same port as ibstat and ibv_devinfo print it, plus a second port that is down."""
    ibstat = "\n".join(["CA 'mlx5_bond_0'", "\tCA type: MT4119", "\tNumber of ports: 1", "\tPort 1:",
                        "\t\tState: Active",
                        "\t\tPhysical state: LinkUp", "\t\tRate: 25", "\t\tLink layer: Ethernet",
                        "CA 'mlx5_2'", "\tPort 1:", "\t\tState: Down", "\t\tPhysical state: Disabled", "\t\tRate: 10",
                        "\t\tLink layer: InfiniBand"])
    devinfo = "\n".join(["hca_id:\tmlx5_bond_0", "\ttransport:\t\t\tInfiniBand (0)", "\t\tport:\t1",
                         "\t\t\tstate:\t\t\tPORT_ACTIVE (4)", "\t\t\tlink_layer:\t\tEthernet",
                         "hca_id:\tmlx5_2", "\t\tport:\t1", "\t\t\tstate:\t\t\tPORT_DOWN (1)",
                         "\t\t\tlink_layer:\t\tInfiniBand"])
    for text in (ibstat, devinfo):
        records = ib_status.parse(text, "x")
        ports = [(n.data["device"], n.data["state"], n.data["link_layer"]) for n in records if isinstance(n, Note)]
        assert ports == [("mlx5_bond_0", "ACTIVE", "Ethernet"), ("mlx5_2", "DOWN", "InfiniBand")]
        assert [h.value for h in records if isinstance(h, HostFact) and h.name == "ib_active_ports"] == [1]


def test_fuzz_never_raises():
    seeds = [shared_path("tickets", *ROCE).read_text()]
    assert_survives_fuzz(ib_status, seeds, n=150)
