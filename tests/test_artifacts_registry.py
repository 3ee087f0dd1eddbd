"""The bundle reader: every real ticket folder, captures, reports, odd files, fuzz."""

import json
import os
import shutil

import pytest
from artifact_fuzz import fuzz_texts
from conftest import shared_path

from diagnose import artifacts
from diagnose.bundle import read_bundle
from diagnose.errors import InputError
from diagnose.evidence import Facts, NcclSetting, Note
from diagnose.findings import Report

# What each real attachment is (a file may hold several outputs). Kinds of this helper's
# parsers must match exactly (no false positives); the hardware-side kinds must be present.
EXPECTED = {
    "006-nccl-949-a100-vm-internode-acs": {"attachment1.txt": {"nccl_tests"}},
    "010-nccl-tests-228-a100-p2p-level-loc-forces-shm": {"attachment1.txt": {"nvlink_status"},
                                                         "attachment2.log": {"nccl_log"}},
    "013-nccl-557-2gpu-nvlink-bridge-hang-slow-nvml": {"attachment1.txt": {"topo_matrix"}},
    "018-azurehpc-health-checks-162-h100-pcie-inactive-links-by-design": {"attachment1.log": {"nvlink_status"}},
    "019-janhq-183-4090-riser-pcie-gen1-downgraded": {"attachment1.txt": {"lspci"}},
    "021-nvtop-6-gen1-at-idle-false-alarm": {"attachment1.txt": {"nvtop"}},
    "022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower": {"attachment1.txt": {"nccl_tests", "launch"},
                                                                "attachment2.txt": {"p2p_test"}},
    "027-torchtitan-853-ci-container-shm-16mb-h100": {"attachment1.log": {"nccl_log"}},
    "028-vllm-6610-gh200-multinode-pp-socket-and-expected": {"attachment1.txt": {"launch"},
                                                             "attachment2.txt": {"nccl_tests", "launch"},
                                                             "attachment3.log": {"nccl_log"}},
    "030-nccl-451-docker-ibv-open-device-failed-socket": {"attachment1.log": {"nccl_log"},
                                                          "attachment2.txt": {"ib_status"}},
    "032-nccl-tests-152-a100-nv-peer-mem-not-loaded": {"attachment1.txt": {"topo_matrix"},
                                                       "attachment2.log": {"nccl_log"},
                                                       "attachment3.txt": {"lspci"}},
    "033-nccl-tests-29-dgx1-v100-gdr-enabled-doubled": {"attachment1.txt": {"topo_matrix"}},
    "036-nccl-1329-a800-vm-4gpu-no-p2p-flat-topology": {"attachment1.txt": {"nccl_topo"}},
    "043-nccl-1876-222-to-225-ring-pxn-drop-a100": {"attachment1.txt": {"nccl_tests"}},
    "044-nccl-371-v100-ib-278-slower-than-256-gdr-read": {"attachment1.txt": {"topo_matrix"},
                                                          "attachment2.txt": {"launch"}},
    "056-vllm-596-3x3090-llama2-13b-40-heads-tp3": {"attachment1.txt": {"launch"}},
    "058-sonar-1114-aphrodite-enforce-eager-tp2-3060": {"attachment1.log": {"serving_bench", "launch"}},
    "066-transformers-9371-titan-rtx-ddp-with-without-nvlink": {"attachment1.txt": set()},  # a hand-made markdown table
    "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional": {"attachment1.txt": {"smi_table"},
                                                            "attachment2.txt": {"p2p_test"}},
    "075-tensorflow-40042-gpu-overheat-progressive-slowdown": {"attachment1.log": {"serving_bench"}},
    "076-vllm-6938-llama-multinode-tp64-vs-tp8-pp8": {},
    "078-vllm-22331-gptoss-120b-a100-tp2-slower-than-tp1": {"attachment1.txt": {"launch"}},
    "079-sglang-pr2643-deepseek-v3-h200-tp8-healthy-serving-baseline": {"attachment1.txt": {"serving_bench", "launch"}},
    "080-vllm-13855-dgx-h100-pin-vllm-to-numa-region": {"attachment1.txt": {"topo_matrix"}},
}
MINE = {"nccl_tests", "nccl_log", "nccl_topo", "ib_status", "serving_bench", "launch", "ticket_toml", "diagnose_report"}


def test_every_ticket_folder_is_read_and_each_attachment_recognised():
    root = shared_path("tickets")
    folders = sorted(p for p in root.iterdir() if p.is_dir())
    assert {p.name for p in folders} == set(EXPECTED), "a ticket was added: say what its attachments are"
    for folder in folders:
        facts = read_bundle(folder)
        kinds = {f.name: set(f.kinds) for f in facts.files}
        assert kinds.pop("ticket.toml") == {"ticket_toml"}, folder.name
        assert set(kinds) == set(EXPECTED[folder.name]), folder.name  # expected.toml is never read
        for name, expected in EXPECTED[folder.name].items():
            assert expected <= kinds[name], (folder.name, name, kinds[name])
            assert kinds[name] & MINE == expected & MINE, (folder.name, name, kinds[name])
            if not expected:
                assert [f.problem for f in facts.files if f.name == name] == ["unrecognised"]
        assert not any("expected.toml" in str(getattr(r, "source", "")) for r in facts.records)


def test_file_list_labels_and_sources():
    folder = shared_path("tickets", "058-sonar-1114-aphrodite-enforce-eager-tp2-3060")
    facts = read_bundle([folder / "attachment1.log", folder / "ticket.toml"])
    assert [f.label() for f in facts.files] == ["attachment1.log (serving_bench, engine_log, launch)",
                                                   "ticket.toml (ticket_toml)"]
    assert {r.source.split(":")[0] for r in facts.records} == {"attachment1.log", "ticket.toml"}


def test_several_outputs_in_one_pasted_file(tmp_path):
    tickets = shared_path("tickets")
    parts = [tickets / "058-sonar-1114-aphrodite-enforce-eager-tp2-3060" / "attachment1.log",
             tickets / "030-nccl-451-docker-ibv-open-device-failed-socket" / "attachment1.log",
             tickets / "006-nccl-949-a100-vm-internode-acs" / "attachment1.txt"]
    pasted = tmp_path / "everything.txt"
    pasted.write_text("\n".join("user@host:~$ cat x\n" + p.read_text() for p in parts))
    (read,) = read_bundle(tmp_path).files
    # (Aphrodite's stats lines state the KV cache's usage: engine_log reads them beside serving_bench)
    assert set(read.kinds) == {"serving_bench", "engine_log", "launch", "nccl_log", "nccl_tests"}


def test_expected_toml_and_hidden_files_are_never_read(tmp_path):
    src = shared_path("tickets", "010-nccl-tests-228-a100-p2p-level-loc-forces-shm")
    shutil.copytree(src, tmp_path / "t")
    (tmp_path / "t" / ".notes").write_text("NCCL_P2P_DISABLE=1\n")
    (tmp_path / "t" / "sub").mkdir()
    (tmp_path / "t" / "sub" / "expected.toml").write_text('label = "x"\n')
    facts = read_bundle(tmp_path / "t")
    assert sorted(f.name for f in facts.files) == ["attachment1.txt", "attachment2.log", "ticket.toml"]
    assert facts.settings("NCCL_P2P_LEVEL")[0].source == "attachment2.log:1"
    assert not facts.settings("NCCL_P2P_DISABLE")


def test_bad_bundle_paths_raise_input_error(tmp_path):
    with pytest.raises(InputError):
        read_bundle(tmp_path / "missing")
    with pytest.raises(InputError):
        read_bundle(tmp_path)  # empty folder
    (tmp_path / "expected.toml").write_text("x = 1\n")
    with pytest.raises(InputError):
        read_bundle(tmp_path)  # only the answer key, which is never read


def test_binary_and_unreadable_files_are_listed_not_fatal(tmp_path):
    (tmp_path / "core.bin").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "notes.txt").write_text("the GPUs are slow, please help\n")
    locked = tmp_path / "locked.log"
    locked.write_text("NCCL INFO NCCL_P2P_DISABLE set by environment to 1\n")
    locked.chmod(0)
    facts = read_bundle(tmp_path)
    problems = {f.name: f.problem for f in facts.files}
    assert problems["core.bin"] == "binary" and problems["notes.txt"] == "unrecognised"
    if os.geteuid() != 0:  # root reads anything
        assert problems["locked.log"].startswith("unreadable")
    assert {n.kind for n in facts.of(Note)} >= {"unrecognised_file"}


def test_nsys_sqlite_goes_to_the_capture_reader():
    capture = shared_path("captures", "cardiac_rtx3060_2021_notables.sqlite")
    facts = read_bundle([capture])
    assert facts.files[0].kinds == ["nsys_sqlite"]
    assert any(type(r).__name__ == "CaptureInfo" for r in facts.records)


def test_diagnose_report_round_trip(tmp_path):
    """A report written from a real bundle's facts gives the same facts back when attached."""
    original = read_bundle(shared_path("tickets", "030-nccl-451-docker-ibv-open-device-failed-socket"))
    report = Report(kind="node", facts=Facts(records=list(original.records)).to_dict())
    (tmp_path / "node.json").write_text(json.dumps(report.to_dict(), indent=2))
    again = read_bundle(tmp_path)
    assert again.files[0].kinds == ["diagnose_report"]
    assert [type(r).__name__ for r in again.records[1:]] == [type(r).__name__ for r in _grouped(original.records)]
    (setting,) = again.of(NcclSetting)
    assert (setting.name, setting.value, setting.source) == ("NCCL_IB_DISABLE", "0", "node.json: attachment1.log:1")


def _grouped(records):
    """Report.facts groups records by type, in order of first appearance."""
    order = list(dict.fromkeys(type(r) for r in records))
    return [r for cls in order for r in records if type(r) is cls]


def test_parser_failure_is_a_note_outside_strict_mode(monkeypatch):
    def broken(text, name):
        raise RuntimeError("boom")

    monkeypatch.setattr(artifacts.nccl_log, "parse", broken)
    monkeypatch.delenv("DIAGNOSE_STRICT", raising=False)
    records, read = artifacts.parse_text("NCCL INFO NET/IB : No device found.", "a.log")
    assert read.problem == "unrecognised" and any(n.kind == "parser_error" for n in records)
    monkeypatch.setenv("DIAGNOSE_STRICT", "1")
    with pytest.raises(RuntimeError):
        artifacts.parse_text("NCCL INFO NET/IB : No device found.", "a.log")


def test_fuzz_bundle(tmp_path):
    seeds = [p.read_text() for p in sorted(shared_path("tickets").glob("*/attachment*"))]
    for i, text in enumerate(fuzz_texts(seeds, n=250, seed=7)):
        (tmp_path / f"f{i:03d}.txt").write_text(text, encoding="utf-8", errors="surrogateescape")
    facts = read_bundle(tmp_path)  # DIAGNOSE_STRICT=1: a parser exception fails this test
    assert len(facts.files) == 250
    for read in facts.files:
        assert read.kinds or read.problem in ("unrecognised", "binary"), read


def test_fuzz_diagnose_report():
    from diagnose.artifacts import node_report

    original = read_bundle(shared_path("tickets", "032-nccl-tests-152-a100-nv-peer-mem-not-loaded"))
    seed = json.dumps(Report(kind="node", facts=Facts(records=list(original.records)).to_dict()).to_dict())
    broken = [seed.replace('"facts": {', '"facts": [{', 1), seed.replace('"kind": "node"', '"kind": 3'),
              seed.replace('"bus_id"', '"bus"'), seed.replace('"source": "', '"source": 7, "x": "')]
    for text in broken + list(fuzz_texts([seed], n=100)):
        for record in node_report.parse(text, "f.json"):
            assert record.source.startswith("f.json")
