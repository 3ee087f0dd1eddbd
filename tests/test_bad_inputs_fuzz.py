"""Bad and hostile inputs through every command (issues 16 and 17).

Each input of the corpus below ends in exit 2 and exactly one stderr line that names it, within
10 s, and no input file changes (every file of the corpus is hashed before and after). The
inputs are made from real ones (the bundled captures, NVML recordings replayed into node
reports, a real shared ticket) broken the ways the issues list. Commands run in-process with
CliRunner; inputs that could hang (FIFOs) or must stay under 1 GB of memory run as processes
with a timeout and an address-space limit, since only a process can prove that. DIAGNOSE_STRICT
is unset: this is what a user sees.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO, shared_path

from diagnose.cli import cli

HEALTHY = REPO / "samples" / "captures" / "tp4_nvlink_healthy.sqlite"
DGX = REPO / "tests" / "recordings" / "dgx-h100-topo-numa.json"
TICKET = "006-nccl-949-a100-vm-internode-acs"  # a shared ticket: attachment1.txt, ticket.toml, expected.toml
DEEP = 100_000  # nesting far beyond Python's recursion limit
LIMIT_S = 10.0


@pytest.fixture(autouse=True)
def _as_a_user(monkeypatch):
    monkeypatch.delenv("DIAGNOSE_STRICT", raising=False)


def invoke(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def hashes(folder: Path) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def ticket_toml(measured: str, tp: str = "4") -> str:
    return (f'[workload]\nmodel = "llama-3-70b"\n\n[[measured]]\n{measured}\ntp = {tp}\nbatch = 1\n\n'
            '[[measured]]\nmetric = "itl_ms"\nvalue = 30\ntp = 8\nbatch = 1\n')


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Every bad input, made once; `c` maps a short name to its path."""
    root = tmp_path_factory.mktemp("bad")
    c = {}

    def folder(name, files: dict):
        d = root / name
        d.mkdir()
        for fname, text in files.items():
            (d / fname).write_text(text) if isinstance(text, str) else (d / fname).write_bytes(text)
        c[name] = d
        return d

    def file(name, content):
        p = root / name
        p.write_text(content) if isinstance(content, str) else p.write_bytes(content)
        c[name] = p
        return p

    file("deep.json", "[" * DEEP + "]" * DEEP)
    file("deep_catalog.toml", "a = " + "[" * DEEP + "]" * DEEP + "\n")
    file("catalog_malformed.toml", "[gpu.x\nname = ")
    file("catalog_binary.toml", bytes(range(256)) * 4)
    file("catalog_latin1.toml", '[gpu.caf\xe9]\nname = "caf\xe9"\n'.encode("latin-1"))
    file("absurd_config.json", json.dumps({"model_type": "llama", "num_hidden_layers": 80, "hidden_size": 10**12,
                                           "num_attention_heads": 64, "vocab_size": 128256,
                                           "intermediate_size": 28672}))
    file("huge_layers_config.json", json.dumps({"model_type": "llama", "num_hidden_layers": 10**6, "hidden_size": 65536,
                                                "num_attention_heads": 64, "vocab_size": 128256,
                                                "intermediate_size": 262144}))
    llama = {"model_type": "llama", "num_hidden_layers": 80, "hidden_size": 8192, "num_attention_heads": 64,
             "vocab_size": 128256, "intermediate_size": 28672}
    file("kv0_config.json", json.dumps({**llama, "num_key_value_heads": 0}))
    file("catalog_huge_model.toml", '[model.m]\nname = "m"\nlayers = 1\nhidden = 1e300\nheads = 1\nkv_heads = 1\n'
                                    'head_dim = 1\nffn = 1\nvocab = 1\n')
    file("catalog_inf_gpu.toml", '[gpu.g]\nname = "g"\nmemory_gb = 80\nhbm_gbs = inf\nbf16_tflops = 989\n'
                                 'fp8_tflops = 0\nfp32_tflops = 67\nnvlink_gen = 0\nnvlink_links = 0\nnvlink_gbs = 0\n'
                                 'pcie_gen = 5\npcie_lanes = 16\ntdp_w = 700\nsms = 132\ninterconnect = "pcie5"\n')
    file("list.json", "[]")
    file("report_bad_field.json", json.dumps({"schema": "diagnose.report/1", "kind": "node", "findings": "many"}))
    file("report_nan.json", '{"schema": "diagnose.report/1", "kind": "node", "verdict": {"category": "healthy", '
                            '"confidence": NaN, "summary": "x"}}')
    folder("ticket_deep", {"ticket.toml": 'description = "slow"\n', "bench.json": "[" * DEEP + "]" * DEEP})
    loop = folder("ticket_loop", {"ticket.toml": 'description = "slow"\n'})
    os.symlink("self", loop / "self")
    folder("ticket_bigint", {"ticket.toml": ticket_toml('metric = "itl_ms"\nvalue = 30', tp=str(10**30))})
    for name, measured in [("itl_zero", 'metric = "itl_ms"\nvalue = 0'),
                           ("itl_negative", 'metric = "itl_ms"\nvalue = -10'),
                           ("itl_huge", 'metric = "itl_ms"\nvalue = 1e300'),
                           ("itl_nan", 'metric = "itl_ms"\nvalue = nan'),
                           ("decode_zero", 'metric = "decode_tok_s"\nvalue = 0')]:
        folder(name, {"ticket.toml": ticket_toml(measured)})

    shutil.copy(HEALTHY, root / "capture.sqlite")
    c["capture.sqlite"] = root / "capture.sqlite"
    shutil.copy(HEALTHY, root / "capture_copy.sqlite")
    c["capture_copy.sqlite"] = root / "capture_copy.sqlite"
    shutil.copytree(shared_path("tickets", TICKET), root / "ticket")
    c["ticket"] = root / "ticket"
    fleet = root / "fleet"
    fleet.mkdir()
    c["fleet"] = fleet
    for i in range(2):
        result = invoke("node", "--replay", DGX, "--json", "-o", fleet / f"node{i}.json", "--fail-on", "never")
        assert result.exit_code == 0, result.output
    c["node0.json"] = fleet / "node0.json"
    node = json.loads((fleet / "node0.json").read_text())
    file("facts_items.json", json.dumps({**node, "facts": {**node["facts"], "gpu_fact": [1, 2]}}))
    file("facts_field.json", json.dumps({**node, "facts": {**node["facts"], "gpu_fact": [
        {**node["facts"]["gpu_fact"][0], "memory_total_mib": "80GB"}]}}))

    from diagnose import store
    from diagnose.findings import Report

    report = Report.from_dict(json.loads((fleet / "node0.json").read_text()))
    for name in ("runs.db", "bad_rows.db", "flipped.db", "flipped_table.db"):
        db = store.open_db(root / name)
        for _ in range(3):
            store.save(report, db=db)
        db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.conn.execute("PRAGMA journal_mode=DELETE")  # one file, so the hash check sees all of it
        db.conn.close()
        c[name] = root / name
    with sqlite3.connect(root / "bad_rows.db") as conn:
        conn.execute("UPDATE runs SET report = '{\"schema\": ', gpu_uuids = '[' WHERE id = 2")
        conn.execute("UPDATE runs SET confidence = 'high' WHERE id = 3")
    conn.close()
    for name, btree in (("flipped.db", "idx_runs_host"), ("flipped_table.db", "runs")):
        with sqlite3.connect(root / name) as conn:
            page_no = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", [btree]).fetchone()[0]
            page = conn.execute("PRAGMA page_size").fetchone()[0]
        conn.close()
        data = bytearray((root / name).read_bytes())
        data[(page_no - 1) * page + 3] ^= 0x40  # one bit of the cell count in the b-tree page's header
        (root / name).write_bytes(bytes(data))
    c["root"] = root
    return c


def _cases(c):
    """(args, the text the one stderr line must hold): issue 16's list, then issue 17's."""
    t = c["ticket"]
    scaling = ("--gpu", "h100-sxm", "--model", "llama-3-70b")
    return [
        (("predict", "--model", c["deep.json"], "--gpu", "h100-sxm"), "deep.json: nested more than"),
        (("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--catalog", c["deep_catalog.toml"]),
         "deep_catalog.toml"),
        (("ticket", c["ticket_deep"]), "bench.json: nested too deeply"),
        (("ticket", c["ticket_loop"]), "self: cannot be opened"),
        (("scaling", c["ticket_bigint"], *scaling), "itl_ms tp: 1e+30 is above"),
        (("history", "--db", c["runs.db"], "--since", "99999999999d"), "99999999999d reaches back more than 100 years"),
        (("history", "--db", c["runs.db"], "--since", "²d"), "'²d'"),
        (("history", "--db", c["runs.db"], "--since", "0001-01-01T00:00:00+14:00"), "0001-01-01T00:00:00+14:00"),
        (("history", "--db", c["runs.db"], "--limit", str(10**30)), "--limit"),
        (("compare", "--db", c["runs.db"], "1", str(10**30)), f"run id {10**30} is beyond SQLite's integer range"),
        (("compare", "--db", c["bad_rows.db"], "1", "2"), "run 2: column 'report'"),
        (("history", "--db", c["bad_rows.db"], "--json"), "run 3: column 'confidence' holds str"),
        (("compare", c["list.json"], c["node0.json"]),
         "list.json: not a diagnose report JSON file (expected a JSON object"),
        (("compare", c["report_bad_field.json"], c["node0.json"]), "field 'findings' must be a list"),
        (("compare", c["report_nan.json"], c["node0.json"]),
         "report_nan.json: not a diagnose report JSON file (not valid JSON (NaN is not a number"),
        (("fleet", c["list.json"]), "list.json: not a diagnose report JSON file"),
        (("fleet", c["facts_items.json"]), "field 'facts.gpu_fact[0]' must be an object, got an integer"),
        (("compare", c["node0.json"], c["facts_field.json"]),
         "field 'facts.gpu_fact[0].memory_total_mib' must be a number"),
        (("fleet", "--db", c["bad_rows.db"]), "run 3: column 'confidence' holds str"),
        (("capture", c["capture.sqlite"], "--catalog", c["catalog_malformed.toml"]),
         "catalog_malformed.toml: not valid TOML"),
        (("capture", c["capture.sqlite"], "--catalog", c["catalog_binary.toml"]), "catalog_binary.toml: is not UTF-8"),
        (("capture", c["capture.sqlite"], "--catalog", c["catalog_latin1.toml"]), "catalog_latin1.toml: is not UTF-8"),
        (("ticket", t, "--catalog", c["catalog_malformed.toml"]), "catalog_malformed.toml: not valid TOML"),
        (("ticket", t, "--catalog", c["catalog_binary.toml"]), "catalog_binary.toml"),
        (("ticket", t, "--catalog", c["catalog_latin1.toml"]), "catalog_latin1.toml"),
        (("capture", c["capture.sqlite"], "--tp", str(10**30)), "--tp"),
        (("predict", "--model", c["absurd_config.json"], "--gpu", "h100-sxm"),
         "'hidden_size' = 1000000000000 is beyond"),
        (("predict", "--model", c["huge_layers_config.json"], "--gpu", "h100-sxm"),
         "huge_layers_config.json: its sizes make"),
        (("compare", c["node0.json"], c["node0.json"], "--threshold", "nan"), "--threshold"),
        (("predict", "--model", c["kv0_config.json"], "--gpu", "h100-sxm"),
         "'num_key_value_heads' must be a positive integer"),
        (("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--catalog", c["catalog_huge_model.toml"]),
         "[model.m]: field 'hidden' must be a non-negative, finite number"),
        (("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--catalog", c["catalog_inf_gpu.toml"]),
         "[gpu.g]: field 'hbm_gbs' must be a non-negative, finite number"),
        (("fleet", c["fleet"], "--z", "nan"), "--z"),
        (("fleet", c["fleet"], "--z", "-1"), "--z"),
        (("fleet", c["fleet"], "--z", "0"), "--z"),
        (("fleet", c["fleet"], "--since", "1d"), "--since 1d filters the runs of --db"),
        (("ticket", "/proc/self/status"), "/proc/self/status: is a system pseudo-file"),
        (("history", "--db", c["flipped.db"], "--host", "gpu-node-01"), "flipped.db: the results database is damaged"),
        (("history", "--db", c["flipped_table.db"]), "flipped_table.db: the results database is damaged"),
        (("compare", "--db", c["flipped_table.db"], "1", "2"), "flipped_table.db: the results database is damaged"),
        (("fleet", "--db", c["flipped_table.db"]), "flipped_table.db: the results database is damaged"),
        (("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "1,2,10000000"), "--tp"),
        (("plan", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", str(10**30), "--context", "8192"), "--gpus"),
        (("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--context", str(10**12)), "--context"),
        (("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--context", "1000000"), "131072-token window"),
        (("plan", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", "8", "--context", "1000000"),
         "131072-token window"),
        (("node", "--replay", DGX, "--timeout", "nan"), "--timeout"),
        (("node", "--replay", DGX, "--timeout", "1e308"), "--timeout"),
        # issue 17: -o is never an input, inside a folder or by content
        (("ticket", t, "-o", t / "attachment1.txt"), "attachment1.txt, which the command reads from"),
        (("scaling", c["itl_zero"], *scaling, "-o", c["itl_zero"] / "ticket.toml"),
         "ticket.toml, which the command reads"),
        (("fleet", c["fleet"], "-o", c["fleet"] / "node0.json"), "fleet/node0.json is one of the inputs"),
        (("capture", c["capture.sqlite"], "-o", c["capture_copy.sqlite"]),
         "capture_copy.sqlite has the same content as"),
        (("ticket", t, "-o", t / "expected.toml"), "expected.toml, which the command reads from"),
        # measured values: finite, positive, within physical bounds, naming the key
        (("scaling", c["itl_zero"], *scaling), "itl_ms: 0 must be positive"),
        (("scaling", c["itl_negative"], *scaling), "itl_ms: -10 must be positive"),
        (("scaling", c["itl_huge"], *scaling), "itl_ms: 1e+300 is above"),
        (("scaling", c["itl_nan"], *scaling), "itl_ms: nan is not a finite number"),
        (("scaling", c["decode_zero"], *scaling), "decode_tok_s: 0 must be positive"),
    ]


def test_every_bad_input_exits_2_naming_it(corpus, monkeypatch):
    before = hashes(corpus["root"])
    cases = _cases(corpus)
    assert len(cases) >= 45
    for args, needle in cases:
        if "--save" in args:
            monkeypatch.setenv("DIAGNOSE_DB", str(corpus["flipped.db"]))
        start = time.monotonic()
        result = invoke(*args)
        took = time.monotonic() - start
        monkeypatch.delenv("DIAGNOSE_DB", raising=False)
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 2, (args, result.exit_code, result.stderr, result.stdout[-300:])
        assert len(lines) == 1 and lines[0].startswith("diagnose: ") and needle in lines[0], (args, result.stderr)
        assert "internal error" not in lines[0] and took < LIMIT_S, (args, took)
        assert hashes(corpus["root"]) == before, args  # nothing written, nothing changed


def _limited():
    """A child process under 1 GB of address space, as issue 17 asks."""
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def test_fifos_and_memory_bounded_inputs_end_within_10_s(corpus, tmp_path):
    """Inputs that could block a read for ever or make a small file take the machine: each in its
    own process, all at once, under 1 GB, each killed after 10 s if it has not ended."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    in_folder = tmp_path / "ticket_with_fifo"
    shutil.copytree(corpus["ticket"], in_folder)
    os.mkfifo(in_folder / "attachment2.log")
    scaling = ("--gpu", "h100-sxm", "--model", "llama-3-70b")
    cases = [
        (("capture", fifo), "is a FIFO"),
        (("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--catalog", fifo), "is a FIFO"),
        (("history", "--db", fifo), "is a FIFO"),
        (("fleet", fifo), "is a FIFO"),
        (("compare", fifo, corpus["node0.json"]), "is a FIFO"),
        (("ticket", in_folder), "attachment2.log: is a FIFO"),
        (("node", "--replay", fifo), "is a FIFO"),
        (("scaling", fifo, *scaling), "is a FIFO"),
        (("predict", "--model", corpus["deep.json"], "--gpu", "h100-sxm"), "nested more than"),
        (("ticket", corpus["ticket_deep"]), "nested too deeply"),
        (("scaling", corpus["itl_zero"], *scaling), "itl_ms: 0 must be positive"),
        (("scaling", corpus["itl_negative"], *scaling), "itl_ms: -10 must be positive"),
        (("scaling", corpus["itl_huge"], *scaling), "itl_ms: 1e+300 is above"),
        (("scaling", corpus["itl_nan"], *scaling), "itl_ms: nan is not a finite number"),
        (("scaling", corpus["decode_zero"], *scaling), "decode_tok_s: 0 must be positive"),
        (("scaling", corpus["ticket_bigint"], *scaling), "itl_ms tp: 1e+30 is above"),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("DIAGNOSE_STRICT", "DIAGNOSE_DB")}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    failures = []
    # a few at once (each alone takes ~1 s, most of it the import): sixteen at once on two cores, beside the test
    # runner's other workers, took the deadline for the imports alone
    for batch in range(0, len(cases), BATCH):
        failures += _ended_as_told(cases[batch:batch + BATCH], env)
    assert not failures, failures


BATCH = 4


def _ended_as_told(cases, env) -> list:
    """Each (args, needle) run in its own process, all at once: those not ended within 2 x LIMIT_S, or not ended with
    exit 2 and one stderr line holding the needle."""
    procs = [(args, needle, subprocess.Popen([sys.executable, "-m", "diagnose", *map(str, args)], cwd=REPO, env=env,
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                             preexec_fn=_limited))
             for args, needle in cases]
    deadline = time.monotonic() + LIMIT_S * 2
    failures = []
    for args, needle, proc in procs:
        try:
            _, err = proc.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            failures.append((args, "still running after the time limit"))
            continue
        lines = err.strip().splitlines()
        if proc.returncode != 2 or len(lines) != 1 or needle not in lines[0]:
            failures.append((args, proc.returncode, err[-400:]))
    return failures


def test_a_link_out_of_the_ticket_folder_is_listed_and_never_read(corpus, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct SECRET-7f3a\n")
    folder = tmp_path / "ticket"
    shutil.copytree(corpus["ticket"], folder)
    os.symlink(secret, folder / "attachment9.log")
    os.symlink("/etc", folder / "etc")
    os.symlink(folder / "expected.toml", folder / "answers.txt")
    shutil.copy(folder / "expected.toml", folder / "notes.toml")  # the answer key under another name
    result = invoke("ticket", folder, "--format", "json", "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    assert "SECRET-7f3a" not in result.stdout
    rows = {r[0]: r[1] for r in json.loads(result.stdout)["tables"]["Attachments read"]["rows"]}
    assert rows["attachment9.log"].startswith("skipped: a link that leads outside the ticket folder")
    assert rows["etc"].startswith("skipped: a link that leads outside")
    assert rows["answers.txt"].startswith("skipped: a link to the ticket's answer key")
    assert rows["notes.toml"].startswith("skipped: a ticket's answer key")
    expected = (folder / "expected.toml").read_text()
    label = next(ln.split('"')[1] for ln in expected.splitlines() if ln.startswith("label"))
    assert label not in json.dumps(json.loads(result.stdout)["facts"])


def test_a_broken_catalog_never_changes_a_shared_tickets_verdict(tmp_path):
    """Every shared ticket: with a broken --catalog the command exits 2 naming the file, so no
    verdict can change silently; with a valid extra catalog the verdict is the one without it."""
    broken = tmp_path / "broken.toml"
    broken.write_bytes(b"\xff\xfe[gpu.x]\n")
    valid = tmp_path / "extra.toml"
    valid.write_text('[engine.my-engine]\nname = "My engine"\ncuda_graphs = true\nkernels_per_layer = 12\n'
                     'launch_us = 5.0\nhost_ms_per_step = 1.0\nhost_ms_per_request = 10.0\n')
    tickets = sorted(p for p in shared_path("tickets").iterdir() if p.is_dir())
    assert len(tickets) >= 10
    for t in tickets:
        result = invoke("ticket", t, "--catalog", broken)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "broken.toml" in result.stderr, \
            (t, result.stderr)
    for t in tickets[:5]:
        plain = json.loads(invoke("ticket", t, "--format", "json", "--fail-on", "never").stdout)["verdict"]
        extra = json.loads(invoke("ticket", t, "--format", "json", "--fail-on", "never",
                                  "--catalog", valid).stdout)["verdict"]
        assert plain == extra, t


def test_a_locked_results_database_is_waited_on_and_named(corpus, tmp_path, monkeypatch):
    from diagnose import store

    db = tmp_path / "locked.db"
    shutil.copy(corpus["runs.db"], db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr(store, "READ_WAIT_SECONDS", 0.5)
    try:
        start = time.monotonic()
        result = invoke("history", "--db", db)
        took = time.monotonic() - start
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{db}: the results database stayed locked by another program for 0.5 s" in result.stderr
    assert "not a diagnose results database" not in result.stderr and took < 5
    unlocked = invoke("history", "--db", db, "--json")
    assert unlocked.exit_code == 0 and len(json.loads(unlocked.stdout)) == 3


def test_an_interrupted_write_leaves_the_old_report_whole(tmp_path, monkeypatch):
    """-o goes through a temporary file renamed into place: a failure before the rename leaves the
    previous report as it was and no temporary file behind."""
    from diagnose import outputs

    out = tmp_path / "report.md"
    assert invoke("ticket", shared_path("tickets", TICKET), "-o", out).exit_code in (0, 1)
    first = out.read_bytes()

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(outputs.os, "replace", interrupted)
    result = invoke("ticket", shared_path("tickets", TICKET), "-o", out, "--format", "json")
    assert result.exit_code == 130
    assert out.read_bytes() == first and sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_a_report_beside_the_inputs_it_does_not_read_is_allowed(corpus, tmp_path):
    """README's fleet sweep writes fleet.html into the folder of node reports: fleet reads only the
    folder's *.json, so a second run may replace it; -o on one of those *.json is refused."""
    folder = tmp_path / "fleet"
    shutil.copytree(corpus["fleet"], folder)
    for _ in range(2):
        result = invoke("fleet", folder, "--format", "html", "-o", folder / "fleet.html", "--fail-on", "never")
        assert result.exit_code == 0, result.stderr
    assert (folder / "fleet.html").read_text().startswith("<!DOCTYPE html>")
    assert invoke("fleet", folder, "-o", folder / "node1.json").exit_code == 2


def test_json_and_toml_inputs_are_bounded_by_size_before_reading(corpus, tmp_path):
    """A JSON or TOML input larger than any real one of its kind is refused from its size alone
    (sparse files: nothing is read, nothing allocated)."""
    def sparse(name, size):
        path = tmp_path / name
        with open(path, "wb") as fh:
            fh.truncate(size)
        return path

    big_report = sparse("big.json", 100 << 20)
    big_config = sparse("config.json", 16 << 20)
    big_catalog = sparse("big.toml", 16 << 20)
    for args, needle in [
        (("compare", big_report, corpus["node0.json"]), "big.json: 100 MiB is larger than any real report file"),
        (("fleet", big_report), "big.json: 100 MiB is larger than any real report file"),
        (("predict", "--model", big_config, "--gpu", "h100-sxm"),
         "config.json: 16 MiB is larger than any real config file"),
        (("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--catalog", big_catalog),
         "big.toml: 16 MiB is larger"),
    ]:
        start = time.monotonic()
        result = invoke(*args)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1 and needle in result.stderr, \
            (args, result.stderr)
        assert time.monotonic() - start < 2.0, args


def test_a_config_json_model_is_found_again_by_its_key(tmp_path):
    """A config.json whose KV heads do not divide the heads: the rules look the model up again by
    the key the config gave it, which must find the same file (it was 'config:...: no such file')."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "num_hidden_layers": 80, "hidden_size": 8192,
                                  "num_attention_heads": 64, "num_key_value_heads": 7, "vocab_size": 128256,
                                  "intermediate_size": 28672}))
    result = invoke("predict", "--model", config, "--gpu", "h100-sxm", "--tp", "1,2", "--json", "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    titles = [f["title"] for f in json.loads(result.stdout)["findings"]]
    assert any("TP=2 is not a valid split" in t for t in titles), titles
