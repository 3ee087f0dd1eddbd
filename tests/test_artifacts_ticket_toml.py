"""ticket.toml: every real ticket's file, unknown and wrong keys, malformed TOML, fuzz."""

import pytest
import tomllib
from artifact_fuzz import assert_survives_fuzz
from conftest import shared_path

from diagnose.artifacts import ticket_toml
from diagnose.evidence import HostFact, Measurement, NcclVersion, Note, Workload


def ticket(folder):
    return shared_path("tickets", folder, "ticket.toml").read_text()


def of(records, cls):
    return [r for r in records if isinstance(r, cls)]


def all_ticket_folders():
    root = shared_path("tickets")
    return sorted(p for p in root.iterdir() if (p / "ticket.toml").exists())


def test_every_real_ticket_toml_reads_back_what_it_says():
    for folder in all_ticket_folders():
        text = (folder / "ticket.toml").read_text()
        doc = tomllib.loads(text)
        records = ticket_toml.parse(text, "ticket.toml")
        assert ticket_toml.detect(text) >= 0.9, folder.name
        assert not [n for n in of(records, Note) if n.kind in ("unknown_key", "invalid_value")], folder.name
        (description,) = [n for n in of(records, Note) if n.kind == "description"]
        assert description.text == doc["description"] and description.source == "ticket.toml:1"
        assert len(of(records, Measurement)) == len(doc.get("measured", []))
        for m, entry in zip(of(records, Measurement), doc.get("measured", [])):
            assert (m.metric, m.value, m.tp, m.batch, m.gpus) == (
                entry["metric"], entry["value"], entry.get("tp"), entry.get("batch"), entry.get("gpus"))


def test_values_of_ticket_028():
    records = ticket_toml.parse(ticket("028-vllm-6610-gh200-multinode-pp-socket-and-expected"), "ticket.toml")
    hardware, framework, workload = of(records, Workload)
    assert (hardware.gpu, hardware.gpu_count, hardware.nodes, hardware.source) == ("NVIDIA GH200", 2, 2,
                                                                                   "ticket.toml:3")
    assert framework.framework == "vLLM 0.5.2 (Ray executor) in Docker"
    assert (workload.model, workload.tp, workload.pp) == ("Meta-Llama-3-70B-Instruct", 1, 2)
    assert [(v.version, v.source) for v in of(records, NcclVersion)] == [("2.21.5", "ticket.toml:10")]
    first, second = of(records, Measurement)
    assert (first.metric, first.value, first.unit, first.gpus, first.source) == ("busbw_gbs", 70.83, "GB/s", 2,
                                                                                 "ticket.toml:18")
    assert (second.metric, second.source) == ("algbw_gbs", "ticket.toml:23")


def test_software_section_of_ticket_022():
    records = ticket_toml.parse(ticket("022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower"), "t")
    assert of(records, HostFact) == [HostFact("t:10", "driver_version", "455.45.01")]
    # the system CUDA stays in the software note; it is not the CUDA NCCL was built for
    assert [(v.version, v.cuda) for v in of(records, NcclVersion)] == [("2.8.3", None)]
    software = [n for n in of(records, Note) if n.kind == "software"][0]
    assert software.data == {"driver": "455.45.01", "cuda": "11.0", "nccl": "2.8.3", "framework": "nccl-tests"}


def test_nccl_version_with_a_comment_043():
    records = ticket_toml.parse(ticket("043-nccl-1876-222-to-225-ring-pxn-drop-a100"), "t")
    assert [v.version for v in of(records, NcclVersion)] == ["2.27.3"]  # "2.27.3 (2.22 was good, drop since 2.25)"


def test_unknown_and_wrong_keys_are_kept_not_fatal():
    text = "priority = 'high'\n" + ticket("078-vllm-22331-gptoss-120b-a100-tp2-slower-than-tp1") + "\n".join([
        "",
        "[hardware.extra]",
        "psu = '2x 1600W'",
        "[[measured]]",
        "metric = 'tok_per_watt'",
        "value = 0.3",
        "[[measured]]",
        "metric = 'decode_tok_s'",
        "value = 'fast'",
    ])
    text = text.replace('tp = 2\nbatch = 1\n\n[[measured]]',
                        'tp = "two"\nbatch = 1\nquant = "mxfp4"\n\n[[measured]]', 1)
    records = ticket_toml.parse(text, "ticket.toml")
    unknown = {n.data["key"] for n in of(records, Note) if n.kind == "unknown_key"}
    assert unknown == {"priority", "hardware.extra", "workload.quant", "measured.metric"}
    invalid = {n.data.get("key") for n in of(records, Note) if n.kind == "invalid_value"}
    assert {"workload.tp", "measured.value"} <= invalid
    assert [m.metric for m in of(records, Measurement)] == ["decode_tok_s", "decode_tok_s", "tok_per_watt"]
    workload = [w for w in of(records, Workload) if w.model][0]
    assert workload.tp is None and workload.batch == 1


@pytest.mark.parametrize("broken", ['description = "unterminated\n[hardware]\ngpu = "A100"', "[hardware\ngpu = 1",
                                    "[[measured]]\nmetric = busbw_gbs"])
def test_malformed_toml_is_reported_unreadable(broken):
    assert ticket_toml.detect(broken) >= 0.5
    (note,) = ticket_toml.parse(broken, "ticket.toml")
    assert note.kind == "unreadable_file" and "not valid TOML" in note.text


def test_fuzz_never_raises():
    seeds = [ticket("079-sglang-pr2643-deepseek-v3-h200-tp8-healthy-serving-baseline"),
             ticket("022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower")]
    assert_survives_fuzz(ticket_toml, seeds, n=200)
