"""Several hardware outputs pasted into one file: each parser reads its own section only."""

import dataclasses
from pathlib import Path

from conftest import shared_path

from diagnose.artifacts import dmesg, lspci, nvlink, nvtop, p2p_test, smi_csv, smi_query, smi_table, topo

DATA = Path(__file__).parent / "data" / "hardware"

PARTS = [
    (smi_table, "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional", "attachment1.txt"),
    (topo, "033-nccl-tests-29-dgx1-v100-gdr-enabled-doubled", "attachment1.txt"),
    (lspci, "019-janhq-183-4090-riser-pcie-gen1-downgraded", "attachment1.txt"),
    (nvlink, "010-nccl-tests-228-a100-p2p-level-loc-forces-shm", "attachment1.txt"),
    (p2p_test, "022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower", "attachment2.txt"),
    (nvtop, "021-nvtop-6-gen1-at-idle-false-alarm", "attachment1.txt"),
    (smi_query, None, "smi_q_h100.txt"),  # no ticket has these: the fixtures stand in
    (dmesg, None, "dmesg_xid.txt"),
    (smi_csv, None, "smi_query_gpu.csv"),
]


def _shifted(records, offset):
    """The records as parsed alone, with line numbers moved to where they sit in the big file."""
    out = []
    for r in records:
        line = int(r.source.rsplit(":", 1)[1])
        out.append(dataclasses.replace(r, source=f"all.txt:{line + offset}"))
    return out


def test_each_parser_finds_its_section_in_one_pasted_file():
    texts = [(shared_path("tickets", folder, name) if folder else DATA / name).read_text() for _, folder, name in PARTS]
    pasted, offsets = "", []
    for (module, _, _), text in zip(PARTS, texts):
        pasted += f"user@gpu-node:~$ {module.KIND.replace('_', ' ')}\n"
        offsets.append(pasted.count("\n"))
        pasted += text.rstrip("\n") + "\n\n"
    for (module, _folder, _), text, offset in zip(PARTS, texts, offsets):
        assert module.detect(pasted) >= 0.5, module.KIND
        alone = _shifted(module.parse(text, "x"), offset)
        assert alone, module.KIND
        assert module.parse(pasted, "all.txt") == alone, module.KIND
