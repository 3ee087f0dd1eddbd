"""`diagnose fleet`: outlier nodes among real node reports (replays of real recordings, real
p2pBandwidthLatencyTest matrices, published nccl-tests figures)."""

import json
import shutil

from conftest import REPO, diagnose, shared_path

from diagnose import store
from diagnose.findings import Report
from diagnose.fleet import NodeMetrics, Value, analyse, fleet_report

DGX_H100 = REPO / "tests" / "recordings" / "dgx-h100-topo-numa.json"


invoke = diagnose


def replay(recording, out):
    """`diagnose node --replay` of a recording, as JSON: the node report each machine would send. Each
    node replays its own copy of the recording (named after its report), as each live node names its
    own host: two reports of the same text are one report given twice, and fleet counts it once."""
    own = recording if recording.parent == out.parent else out.parent / f"{out.stem}.recording.json"
    if not own.exists():
        shutil.copy(recording, own)
    result = invoke("node", "--replay", own, "--json", "-o", out, "--fail-on", "never")
    assert result.exit_code == 0, result.output
    return out


def recording_with_link_down(tmp_path, gpu=3, link=5):
    """The DGX H100 recording with one NVLink answering inactive, as NVML reports a link that
    trained down: the fault is in the raw answer, everything above it is the real pipeline."""
    data = json.loads(DGX_H100.read_text())
    hits = [a for a in data["answers"] if a["call"] == "nvmlDeviceGetNvLinkState" and a["args"] == [gpu, link]]
    assert len(hits) == 1 and hits[0]["value"] == 1
    hits[0]["value"] = 0
    path = tmp_path / "node-bad-recording.json"
    path.write_text(json.dumps(data))
    return path


def test_nvlink_down_node_stands_out(tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    for i in range(1, 5):
        replay(DGX_H100, reports / f"node-0{i}.json")
    replay(recording_with_link_down(tmp_path), reports / "node-05.json")
    result = invoke("fleet", reports, "--json")
    assert result.exit_code == 1, result.output  # a link down is critical
    report = json.loads(result.output)
    assert report["verdict"]["category"] == "nvlink_down"
    outliers = [f for f in report["findings"] if f["rule"] == "fleet.outlier"]
    assert len(outliers) == 1 and outliers[0]["title"].startswith("node-05 ")
    evidence = outliers[0]["evidence"][0]
    assert (evidence["measured"], evidence["expected"]) == (17.0, 18.0)  # GPU3's links of 18
    assert "GPU3 link 5" in evidence["detail"] and evidence["source"].endswith("node-05.json")
    # the other four agree exactly (MAD 0): a z against the scale's floor (+14.0) means nothing; say the gap
    assert "MAD 0" in evidence["detail"] and "off by -1 links" in evidence["detail"], evidence["detail"]
    assert "robust z" not in evidence["detail"] and "robust z" not in outliers[0]["summary"]
    rows = {r[0]: r for r in report["tables"]["Fleet"]["rows"]}
    assert rows["node-05"][3] == 1 and all(rows[f"node-0{i}"][3] == 0 for i in range(1, 5))
    # each node's own verdict beside it: node-05's own checks see the link down as well
    assert rows["node-05"][2] == "nvlink_down" and all(rows[f"node-0{i}"][2] == "healthy" for i in range(1, 5))


def test_identical_real_nodes_have_no_outlier(tmp_path):
    paths = [replay(DGX_H100, tmp_path / f"n{i}.json") for i in range(3)]
    result = invoke("fleet", *paths, "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["verdict"]["category"] == "healthy"
    assert [f["rule"] for f in report["findings"]] == ["fleet.no_outlier"]


def a40_node(tmp_path, name, p2p_enabled):
    """A node report carrying one of ticket 022's real 8x A40 bandwidth matrices."""
    from diagnose.bundle import read_bundle

    facts = read_bundle([next(shared_path("tickets").glob("022-*"))]).to_dict()
    facts["pair_bandwidth"] = [p for p in facts["pair_bandwidth"] if p["p2p_enabled"] is p2p_enabled]
    facts["host_fact"] = [{"source": "test", "name": "hostname", "value": name}]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(Report(kind="node", facts=facts).to_dict()))
    return path


def test_node_with_p2p_off_is_an_outlier_in_copy_bandwidth(tmp_path):
    paths = [a40_node(tmp_path, f"a40-{i}", True) for i in range(4)] + [a40_node(tmp_path, "a40-9", False)]
    result = invoke("fleet", *paths, "--json")
    assert result.exit_code == 0, result.output  # bandwidth outliers are warnings
    report = json.loads(result.output)
    outlier = next(f for f in report["findings"] if f["rule"] == "fleet.outlier")
    assert outlier["severity"] == "warning" and outlier["title"].startswith("a40-9 ")
    by_metric = {e["detail"].split(":")[0]: e for e in outlier["evidence"]}
    slowest = by_metric["P2P copy GB/s bi (slowest pair)"]
    assert slowest["measured"] < 20 < 39 < slowest["expected"]  # ~19 GB/s through the host vs ~39.6 over P2P
    assert invoke("fleet", *paths, "--fail-on", "warning").exit_code == 1
    # Mixed GPU models are judged apart: three H100 replays join, and nothing changes for the A40s.
    more = [replay(DGX_H100, tmp_path / f"h100-{i}.json") for i in range(3)]
    mixed = json.loads(invoke("fleet", *paths, *more, "--json").output)
    assert [f["title"].split(" ")[0] for f in mixed["findings"] if f["rule"] == "fleet.outlier"] == ["a40-9"]


def test_robust_statistics_on_published_h100_figures():
    """Peak all-reduce busbw of 8x H100 SXM machines as published (collectives-reference.md):
    ~480 GB/s [R2], 476 GB/s [R3], ≈480 GB/s with SHARP [R5]; and ≈370 GB/s [R5] with NVLink
    SHARP off. The SHARP-off machine is the fleet's outlier; the others are not."""
    doc = shared_path("docs", "collectives-reference.md").read_text()
    for quoted in ("~480 GB/s", "476 GB/s", "≈480 GB/s", "≈370 GB/s"):
        assert quoted in doc
    published = {"R2-nvls": 480.0, "R3-nvls": 476.0, "R5-sharp-on": 480.0, "R5-sharp-off": 370.0}
    nodes = [NodeMetrics(name, "H100 SXM", "collectives-reference.md",
                         {"all_reduce ×8 busbw peak": Value(v, "GB/s", "higher", "other")})
             for name, v in published.items()]
    result = analyse(nodes)
    (metric,) = result.metrics
    assert metric.median == 478.0 and metric.mad == 2.0
    flagged = {p.node: p.outlier for p in metric.points}
    assert flagged == {"R2-nvls": False, "R3-nvls": False, "R5-sharp-on": False, "R5-sharp-off": True}
    # Two nodes are not a fleet: no verdict from too few.
    report = fleet_report(nodes[:2])
    assert report.verdict.category == "insufficient_data"


def test_fleet_from_the_results_database(tmp_path):
    db_path = tmp_path / "fleet.db"
    db = store.open_db(db_path)
    for i in range(1, 4):
        recording = tmp_path / f"node-0{i}.json"
        shutil.copy(DGX_H100, recording)
        store.save(Report.from_dict(json.loads(replay(recording, tmp_path / f"r{i}.json").read_text())), db=db)
    bad = tmp_path / "node-04.json"
    shutil.copy(recording_with_link_down(tmp_path), bad)
    store.save(Report.from_dict(json.loads(replay(bad, tmp_path / "r4.json").read_text())), db=db)
    hosts = {r["host"] for r in store.runs(db)}
    assert hosts == {"replay:node-01", "replay:node-02", "replay:node-03", "replay:node-04"}
    result = invoke("fleet", "--db", db_path, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    assert [f["title"].split(" ")[0] for f in report["findings"] if f["rule"] == "fleet.outlier"] == ["replay:node-04"]


def named_node(path, hostname):
    """A real node report (DGX H100 replay) as a live node sends it: with its hostname."""
    report = json.loads(path.read_text())
    report["facts"]["host_fact"].append({"source": "probe:host", "name": "hostname", "value": hostname})
    path.write_text(json.dumps(report))
    return path


def test_a_report_named_twice_or_copied_counts_once(tmp_path):
    """Three names for one report are one node, not a fleet of three that passes the minimum."""
    reports = tmp_path / "reports"
    reports.mkdir()
    one = named_node(replay(DGX_H100, reports / "node-01.json"), "gpu-node-01")
    copy = tmp_path / "node-01-copy.json"
    shutil.copy(one, copy)
    result = invoke("fleet", one, one, reports, copy, "--json")
    report = json.loads(result.output)
    assert [r[0] for r in report["tables"]["Fleet"]["rows"]] == ["gpu-node-01"]
    assert report["verdict"]["category"] == "insufficient_data" and report["inputs"]["duplicates_dropped"] == 3
    note = report["tables"]["Fleet"]["note"]
    assert note.startswith("3 duplicate report(s) counted once: ") and f"{copy} (= {one})" in note
    # Three real nodes, one of them also named in its folder: still three, and nothing else changes.
    paths = [one] + [named_node(replay(DGX_H100, reports / f"node-0{i}.json"), f"gpu-node-0{i}") for i in (2, 3)]
    report = json.loads(invoke("fleet", reports, *paths, "--json").output)
    assert len(report["tables"]["Fleet"]["rows"]) == 3 and report["verdict"]["category"] == "healthy"
    assert report["inputs"]["duplicates_dropped"] == 3


def test_a_copied_replay_report_counts_once(tmp_path):
    """ut10b #9: a copy of a sample (a replay report, which names no host) made the fleet count its
    node twice ('P2P ... on 2 of 4 h100-sxm nodes'). The same text is one report; the samples
    themselves, six different nodes, all stay."""
    folder = tmp_path / "f"
    shutil.copytree(SAMPLES, folder)
    clean = json.loads(invoke("fleet", folder, "--json").output)
    shutil.copy(folder / "hgx-h100-smi-p2p-bidirectional.json", folder / "copy.json")
    report = json.loads(invoke("fleet", folder, "--json").output)
    assert report["inputs"]["nodes"] == clean["inputs"]["nodes"] == 6 and report["inputs"]["duplicates_dropped"] == 1
    assert "duplicates_dropped" not in clean


def test_empty_folders_are_named(tmp_path):
    empty, also = tmp_path / "reports", tmp_path / "more"
    empty.mkdir()
    also.mkdir()
    (also / "notes.txt").write_text("not a report")
    result = invoke("fleet", empty, also)
    assert result.exit_code == 2
    assert f"no node reports found in {empty} (no *.json files); {also} (no *.json files)" in result.stderr


def test_a_bad_file_inside_a_folder_is_listed_and_the_rest_judged(tmp_path):
    """One crashed node's empty report, or the fleet's own report saved beside the node reports,
    leaves the other nodes judged as without it; named on the command line it is bad input."""
    folder = tmp_path / "reports"
    shutil.copytree(SAMPLES, folder)
    first = invoke("fleet", folder, "--json")
    clean = json.loads(first.output)
    (folder / "node9.json").write_text("")
    assert invoke("fleet", folder, "--json", "-o", folder / "fleet.json").exit_code == first.exit_code
    result = invoke("fleet", folder, "--json")
    report = json.loads(result.output)
    assert result.exit_code == first.exit_code and report["inputs"]["nodes"] == clean["inputs"]["nodes"] == 6
    assert report["verdict"] == clean["verdict"]
    assert [s.split(":")[0] for s in report["inputs"]["skipped"]] == [str(folder / "fleet.json"),
                                                                      str(folder / "node9.json")]
    assert "a fleet report" in report["inputs"]["skipped"][0] and "not valid JSON" in report["inputs"]["skipped"][1]
    assert "2 file(s) in the folder(s) given are not node reports" in " ".join(invoke("fleet", folder).stdout.split())
    named = invoke("fleet", folder / "node9.json")
    assert named.exit_code == 2 and "node9.json: not a diagnose report JSON file" in named.stderr
    only_bad = tmp_path / "bad"
    only_bad.mkdir()
    (only_bad / "x.json").write_text("{}")
    result = invoke("fleet", only_bad)
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert f"{only_bad} (no node report among its *.json files)" in result.stderr and "x.json" in result.stderr


def test_an_outlying_link_count_prints_as_a_count(tmp_path):
    """ut9b: the fleet table printed a node with two NVLinks down as '16.0 !'."""
    folder = tmp_path / "reports"
    shutil.copytree(SAMPLES, folder)
    path = folder / "hgx-h100-smi-p2p-bidirectional.json"
    report = json.loads(path.read_text())
    down = [link for link in report["facts"]["nv_link_fact"] if link["gpu"] == 0][:2]
    for link in down:
        link["active"] = False
    path.write_text(json.dumps(report))
    rows = json.loads(invoke("fleet", folder, "--json").output)["tables"]["Fleet"]["rows"]
    (row,) = [r for r in rows if r[0] == "hgx-h100-smi-p2p-bidirectional"]
    assert row[-1] == "16 !"
    assert "16.0" not in invoke("fleet", folder).stdout


def test_bad_input_exits_2(tmp_path):
    ticket = tmp_path / "ticket.json"
    ticket.write_text(json.dumps(Report(kind="ticket").to_dict()))
    for args, needle in [((ticket,), "ticket.json: a ticket report; fleet compares node reports"),
                         ((), "give node report files or folders, or --db PATH"),
                         (("--db", tmp_path / "absent.db"), "no results database at")]:
        result = invoke("fleet", *args)
        assert result.exit_code == 2, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("diagnose: ") and needle in lines[0], result.stderr


def test_node_metrics_from_a_published_sweep():
    """What fleet reads from a node's all_reduce sweep (DGX H100 [R14]): busbw per size from
    1 MiB, and the small-message latency of the largest size at or below 64 KiB."""
    from test_html import published_sweep

    from diagnose.fleet import node_metrics

    node = node_metrics(Report(kind="node", facts={"collective_result": published_sweep()}), "dgx-h100.json")
    assert node.node == "dgx-h100"
    assert list(node.values) == ["all_reduce ×8 busbw 1M", "all_reduce ×8 busbw 4M", "all_reduce ×8 busbw 16M",
                                 "all_reduce ×8 busbw 64M", "all_reduce ×8 latency 16K"]
    assert node.values["all_reduce ×8 latency 16K"].value == 29.0  # µs, as published
    assert round(node.values["all_reduce ×8 busbw 64M"].value) == 362


def test_nodes_are_grouped_by_catalog_row_not_raw_name(tmp_path):
    """Two real HGX H100 replays name their GPUs "NVIDIA H100 80GB HBM3"; a third node whose
    report knows its GPUs only by catalog row (a PCI id reading, names null) is the same model:
    one group of 3 that can be judged, not a group of 2 plus an "unknown GPU" of 1. A report
    naming no GPU at all (the DGX topology transcription) says so instead of "unknown GPU"."""
    recordings = REPO / "tests" / "recordings"
    reports = tmp_path / "reports"
    reports.mkdir()
    replay(recordings / "hgx-h100-smi-p2p-bidirectional.json", reports / "a.json")
    named = json.loads(replay(recordings / "hgx-h100-nvlink-status-mig-disabled.json", reports / "b.json").read_text())
    assert {g["name"] for g in named["facts"]["gpu_fact"]} == {"NVIDIA H100 80GB HBM3"}
    for gpu in named["facts"]["gpu_fact"]:
        gpu["name"] = None
    named["facts"]["host_fact"] = [h for h in named["facts"]["host_fact"] if h["name"] != "hostname"]
    (reports / "c.json").write_text(json.dumps(named))
    replay(DGX_H100, reports / "d.json")
    report = json.loads(invoke("fleet", reports, "--json", "--fail-on", "never").stdout)
    groups = {row[0]: row[1] for row in next(iter(report["tables"].values()))["rows"]}
    assert groups == {"a": "h100-sxm", "b": "h100-sxm", "c": "h100-sxm", "d": "GPU not named in the report"}, groups
    # the one unnamed node is asked for a report naming its GPU (review item 12), not for two more like it
    assert not [f for f in report["findings"] if f["rule"] == "fleet.too_few_nodes"]
    (unnamed,) = [f for f in report["findings"] if f["rule"] == "fleet.gpu_not_named"]
    assert unnamed["title"] == "no GPU model named in the report of d"


SAMPLES = REPO / "samples" / "fleet"


def test_shipped_fleet_samples_are_replays_of_their_recordings(tmp_path):
    """Each samples/fleet/NAME.json holds the facts `diagnose node --replay tests/recordings/NAME.json`
    gives today (the facts are what `fleet` compares; finding wording may move on)."""
    samples = sorted(SAMPLES.glob("*.json"))
    assert len(samples) == 6
    for sample in samples:
        fresh = json.loads(replay(REPO / "tests" / "recordings" / sample.name, tmp_path / sample.name).read_text())
        assert json.loads(sample.read_text())["facts"] == fresh["facts"], (
            f"stale: diagnose node --replay tests/recordings/{sample.name} --json -o samples/fleet/{sample.name} "
            "--fail-on never")


def test_shipped_fleet_example_judges_the_three_h100_sxm_nodes():
    """`diagnose fleet samples/fleet/` as the README shows it. Derived by hand from the recordings:
    three nodes name H100 80GB HBM3 GPUs (nccl#1264's Supermicro HGX: `topo -m` NV18 on 8 GPUs; the
    RHEL AI VM: `topo --matrix` NV18 on 8 GPUs; the Bottlerocket HGX: `nvlink --status` of GPUs 0-1,
    18 links up each), so every GPU shown has 18 active NVLinks and none is an outlier. Only the
    link count is measured on all three (the P2P matrix on one node only), so it is the one metric
    judged. The DGX H100 names no GPU, and the A100 and A40 stand alone: too few to judge. Each node
    keeps its own verdict: the HGX A100 runs with NCCL_P2P_LEVEL=LOC (critical in `diagnose node`), the
    A40 box's P2P is slower across its sockets (a warning), and the fleet says both, at those severities."""
    result = invoke("fleet", SAMPLES, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    assert report["verdict"]["category"] == "shm_fallback"
    own = {f["title"].split(":")[0]: (f["category"], f["severity"]) for f in report["findings"]
           if f["rule"] == "fleet.node_verdict"}
    assert own == {"hgx-a100-nvlink-p2p-level-loc": ("shm_fallback", "critical"),
                   "8x-a40-nvlink-pairs-two-sockets": ("numa_affinity", "warning")}
    for name, (category, _) in own.items():  # what `diagnose node` says of the same facts
        assert json.loads((SAMPLES / f"{name}.json").read_text())["verdict"]["category"] == category
    rules = {f["rule"]: f for f in report["findings"]}
    # review item 12: what was not compared is a gap of its own (terminal and Markdown show titles, not
    # a passed check's summary), and the unnamed DGX needs a report that names its GPU, not more nodes
    assert set(rules) == {"fleet.node_verdict", "fleet.no_outlier", "fleet.too_few_nodes", "fleet.not_compared",
                          "fleet.gpu_not_named"}
    assert rules["fleet.no_outlier"]["title"] == "no outlier among the nodes compared (3 h100-sxm)"
    assert "P2P copy GB/s bi (slowest pair) on 1 of 3 h100-sxm nodes" in rules["fleet.not_compared"]["title"]
    assert rules["fleet.too_few_nodes"]["title"] == ("too few nodes of one GPU model to judge: "
                                                     "a40 (1), a100-80gb-sxm (1)")
    assert rules["fleet.gpu_not_named"]["title"] == "no GPU model named in the report of dgx-h100-topo-numa"
    assert "nvidia-smi -L" in rules["fleet.gpu_not_named"]["ask"]
    text = invoke("fleet", SAMPLES).stdout
    assert "P2P copy GB/s bi (slowest pair) on 1 of 3 h100-sxm nodes" in " ".join(text.split())
    assert "18.0" not in text  # a count prints as a count
    assert {type(row[-1]) for row in next(iter(report["tables"].values()))["rows"] if row[-1] is not None} == {int}
    assert "attach" not in text  # nobody attaches anything to a fleet run: Next says what to run
    (metric,) = report["facts"]["fleet_metric"]
    assert (metric["group"], metric["name"], metric["median"], metric["mad"]) == (
        "h100-sxm", "active NVLinks (fewest on one GPU)", 18.0, 0.0)
    assert {p["node"]: p["value"] for p in metric["points"]} == {
        "hgx-h100-smi-p2p-bidirectional": 18.0, "h100-vm-rhel-ai-topo-nvlink": 18.0,
        "hgx-h100-nvlink-status-mig-disabled": 18.0}
    # The Bottlerocket report shows 2 of its 8 GPUs (36 links, the others 144): per GPU, that is no deficit.
    two = json.loads((SAMPLES / "hgx-h100-nvlink-status-mig-disabled.json").read_text())
    assert len(two["facts"]["nv_link_fact"]) == 36


def test_a_unidirectional_matrix_is_not_compared_with_bidirectional_ones(tmp_path):
    """Ticket 071's HGX H100 measured ~749 GB/s bidirectional and ~380 GB/s unidirectional per pair
    (its description). Three nodes with the bidirectional matrix and one that ran the unidirectional
    test: the fourth moved half the bytes per second by design, so it is not an outlier; its matrix is
    simply not compared, and the report says so."""
    ticket = next(shared_path("tickets").glob("071-*"))
    assert "~380 GB/s unidirectional" in (ticket / "ticket.toml").read_text()
    hgx = REPO / "tests" / "recordings" / "hgx-h100-smi-p2p-bidirectional.json"
    paths = [replay(hgx, tmp_path / f"bi-{i}.json") for i in range(3)]
    uni = json.loads(paths[0].read_text())
    uni["facts"]["pair_bandwidth"] = [{**p, "direction": "uni", "value": 380.0} for p in uni["facts"]["pair_bandwidth"]]
    (tmp_path / "uni.json").write_text(json.dumps(uni))
    result = invoke("fleet", *paths, tmp_path / "uni.json", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert not [f for f in report["findings"] if f["rule"] == "fleet.outlier"]
    compared = {m["name"]: len(m["points"]) for m in report["facts"]["fleet_metric"]}
    assert compared == {"P2P copy GB/s bi (slowest pair)": 3, "P2P copy GB/s bi (median pair)": 3,
                        "active NVLinks (fewest on one GPU)": 4}
    (skipped,) = [f for f in report["findings"] if f["rule"] == "fleet.not_compared"]
    assert "P2P copy GB/s uni (slowest pair) on 1 of 4 h100-sxm nodes" in skipped["title"]
