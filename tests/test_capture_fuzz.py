"""Truncated and bit-flipped copies of real captures: a report or one clear line, never a traceback."""

import random
import time

import pytest
from click.testing import CliRunner
from conftest import shared_path

from diagnose.cli import cli

SOURCES = ["nsysai_rtx3080_torch_mock.sqlite", "gameoflife_a100_2022_1.sqlite", "memfusion_rtx3090x4_trt_2023_1.sqlite"]
MUTATIONS = 8  # per source file and kind: a few dozen runs in all, seconds not minutes


def _check(path):
    start = time.monotonic()
    result = CliRunner().invoke(cli, ["capture", str(path), "--json", "--fail-on", "never"])
    assert time.monotonic() - start < 30, "analysis of a damaged file took too long"
    if result.exit_code == 2:
        lines = [l for l in result.output.splitlines() if l.strip()]
        assert len(lines) == 1 and lines[0].startswith("diagnose:"), result.output
    else:
        # exit 3 would be an internal error: a damaged file must not reach it
        assert result.exit_code == 0, (result.exit_code, result.output[-2000:], result.exception)
        assert result.output.lstrip().startswith("{")
    assert "Traceback" not in result.output
    return result.exit_code


@pytest.mark.parametrize("name", SOURCES)
def test_truncated_copies(tmp_path, name):
    data = shared_path("captures", name).read_bytes()
    rng = random.Random(name)
    cuts = sorted({rng.randrange(1, len(data)) for _ in range(MUTATIONS - 2)} | {4096, len(data) - 1})
    codes = [_check(_write(tmp_path, f"cut{n}.sqlite", data[:n])) for n in cuts]
    assert set(codes) == {2}  # every cut copy is recognised as truncated


@pytest.mark.parametrize("name", SOURCES)
def test_bit_flipped_copies(tmp_path, name):
    data = shared_path("captures", name).read_bytes()
    rng = random.Random(f"flip-{name}")
    codes = []
    for i in range(MUTATIONS):
        mutated = bytearray(data)
        for _ in range(1 + i * 4):  # from one flipped bit to a few dozen
            pos = rng.randrange(100, len(mutated))  # keep the 100-byte header so SQLite reads on
            mutated[pos] ^= 1 << rng.randrange(8)
        codes.append(_check(_write(tmp_path, f"flip{i}.sqlite", bytes(mutated))))
    assert set(codes) <= {0, 2}


def _write(folder, name, data):
    path = folder / name
    path.write_bytes(data)
    return path


def test_deadline_stops_a_long_read():
    """The ticket reader bounds capture analysis in time: a read past the deadline is interrupted
    and reported in one line instead of hanging."""
    from diagnose.capture.facts import analyse
    from diagnose.errors import InputError

    with pytest.raises(InputError, match="took too long"):
        analyse([str(shared_path("captures", "rodinia_gaussian_rtx3090_2022_4.sqlite"))], deadline_s=1e-9)


def test_a_user_testers_flipped_copy_is_one_line_and_exit_2(tmp_path):
    # 200 bytes of gameoflife_a100_2022_1 flipped (a user-tester's copy, tests/data): a schema byte that is not UTF-8
    # made SQLite's own error message undecodable, and the UnicodeDecodeError left as an internal error (exit 3)
    import json
    from pathlib import Path

    flips = json.loads((Path(__file__).parent / "data" / "flip_gameoflife_a100_seed1.json").read_text())
    data = bytearray(shared_path("captures", flips["source"]).read_bytes())
    for pos, value in flips["bytes"]:
        data[pos] = value
    assert _check(_write(tmp_path, "flip.sqlite", bytes(data))) == 2


@pytest.mark.parametrize("name", ["rodinia_gaussian_rtx3090_2022_4.sqlite", "cardiac_rtx3060_2021_notables.sqlite",
                                  "fuser_h200_crossentropy_2025_1.sqlite"])
def test_a_schema_byte_that_is_not_utf8_is_a_damaged_file(tmp_path, name):
    # the first NOT NULL of the schema as NOT \xb1ULL: SQLite's syntax error quotes the byte
    data = bytearray(shared_path("captures", name).read_bytes())
    data[data.find(b"NOT NULL") + 4] = 0xB1
    result = CliRunner().invoke(cli, ["capture", str(_write(tmp_path, name, bytes(data)))])
    assert result.exit_code == 2 and "damaged SQLite file" in result.output and "Traceback" not in result.output
