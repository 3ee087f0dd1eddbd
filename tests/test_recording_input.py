"""A recording handed to --replay is user input: typed, bounded by physics, opened through
diagnose.inputs; and the one NVML call that fills a struct is made with a pointer (proved on a
stand-in libnvidia-ml compiled here)."""

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from diagnose.errors import InputError
from probes.recording import ReplaySession

REPO = Path(__file__).resolve().parents[1]
DGX = REPO / "tests" / "recordings" / "dgx-h100-topo-numa.json"
HGX = REPO / "tests" / "recordings" / "hgx-h100-smi-p2p-bidirectional.json"


def _write(tmp_path, data, name="r.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return p


def _with_answer(base: Path, call: str, value, args=None):
    data = json.loads(base.read_text())
    for a in data["answers"]:
        if a["call"] == call and (args is None or a["args"] == args):
            a["value"] = value
            return data
    data["answers"].append({"call": call, "args": args or [], "value": value})
    return data


BAD_VALUES = [
    ("nvmlDeviceGetCount", [], {"n": 8}, "expected an integer"),
    ("nvmlDeviceGetCount", [], [8], "expected an integer"),
    ("nvmlDeviceGetCount", [], "8", "expected an integer"),
    ("nvmlDeviceGetCount", [], True, "expected an integer"),
    ("nvmlDeviceGetCount", [], 8.5, "expected an integer"),
    ("nvmlDeviceGetCount", [], 10**9, "outside 0..64"),
    ("nvmlDeviceGetCount", [], 10**30, "outside 0..64"),
    ("nvmlDeviceGetNvLinkState", [0, 0], 5, "outside 0..1"),
    ("nvmlDeviceGetNvLinkState", [0, 99], 1, "(NVLink)"),
    ("nvmlDeviceGetNvLinkState", [10**9, 0], 1, "(GPU index)"),
    ("nvmlDeviceGetNumaNodeId", [0], None, "expected an integer"),
    ("nvmlDeviceGetCpuAffinity", [0], 12, "expected text"),
    ("nvmlDeviceGetMemoryInfo", [0], {"total": "80GB"}, "total: expected an integer"),
    ("nvmlDeviceGetMigMode", [0], [1], "expected a list of 2"),
    ("nvmlDeviceGetGpuFabricInfo", [0], [3, 0], "expected an object"),
    ("env", [], ["NCCL_P2P_DISABLE=1"], "expected an object"),
]


@pytest.mark.parametrize("call,args,value,words", BAD_VALUES, ids=[f"{c}-{w}" for c, _, _, w in BAD_VALUES])
def test_a_wrong_type_or_impossible_count_is_bad_input_naming_the_field(tmp_path, call, args, value, words):
    p = _write(tmp_path, _with_answer(DGX, call, value, args))
    with pytest.raises(InputError) as exc:
        ReplaySession(p)
    assert words in str(exc.value) and call in str(exc.value) and "answers[" in str(exc.value)


@pytest.mark.parametrize("field,value,words", [
    ("value", "fast", "expected a number"),
    ("value", None, "expected a number"),
    ("value", True, "expected a number"),
    ("a", 10**30, "outside 0..63"),
    ("a", -1, "outside 0..63"),
    ("p2p_enabled", "yes", "expected true or false"),
    ("direction", 3, "expected text"),
])
def test_a_recorded_measurement_of_the_wrong_type_is_bad_input(tmp_path, field, value, words):
    data = json.loads(HGX.read_text())
    data["results"][0][field] = value
    with pytest.raises(InputError) as exc:
        ReplaySession(_write(tmp_path, data))
    assert f"results[0] (PairBandwidth).{field}" in str(exc.value) and words in str(exc.value)


def test_nan_and_infinity_are_refused(tmp_path):
    text = HGX.read_text().replace('"value": 739.42', '"value": NaN', 1)
    assert "NaN" in text
    (tmp_path / "r.json").write_text(text)
    with pytest.raises(InputError, match="NaN"):
        ReplaySession(tmp_path / "r.json")
    data = json.loads(HGX.read_text())
    data["results"][0]["value"] = 1e400  # json writes Infinity
    with pytest.raises(InputError, match="Infinity"):
        ReplaySession(_write(tmp_path, data))


def test_sections_of_the_wrong_type_are_bad_input(tmp_path):
    for section, value in (("answers", {"call": "x"}), ("results", "none"), ("meta", [1])):
        data = json.loads(DGX.read_text())
        data[section] = value
        with pytest.raises(InputError, match=f"'{section}' must be"):
            ReplaySession(_write(tmp_path, data))


def test_a_fifo_is_refused_before_it_is_read(tmp_path):
    fifo = tmp_path / "rec.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO"):
        ReplaySession(fifo)


@pytest.mark.parametrize("count", ["10**9", "10**30"])
def test_a_huge_count_exits_2_quickly_within_1_gb(tmp_path, count):
    data = copy.deepcopy(json.loads(DGX.read_text()))
    for a in data["answers"]:
        if a["call"] == "nvmlDeviceGetCount":
            a["value"] = eval(count)  # noqa: S307 - a literal of the test's own
    p = _write(tmp_path, data)
    limit = ("import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
             "sys.argv = ['diagnose', 'node', '--replay', sys.argv[1]]; runpy.run_module('diagnose', "
             "run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", limit, str(p)], capture_output=True, text=True, timeout=10, cwd=REPO)
    assert out.returncode == 2, out.stderr[-500:]
    assert "nvmlDeviceGetCount" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


STAND_IN = REPO / "tests" / "data" / "nvml_stand_in" / "nvml_stand_in.c"
# The stand-in is loaded by its path before pynvml would look for the driver's library (on a GPU machine the
# driver's libnvidia-ml.so.1 comes first despite LD_LIBRARY_PATH). On the lent H200 this test then read 0 for the
# stand-in's 3: that nvidia-ml-py sized the struct's clusterUuid 80 bytes, not nvml.h's 16, which is why the probe
# now lays the struct out itself (probes.recording._fabric_info_struct).
READ_FABRIC = """
import ctypes, json, sys
import pynvml
pynvml.nvmlLib = ctypes.CDLL(sys.argv[1])
from probes.recording import LiveSession
s = LiveSession()
s.nvml("nvmlInit")
print(json.dumps(s.get("nvml", "nvmlDeviceGetGpuFabricInfo", 0)))
print(json.dumps([a for a in s.answers if a["call"] == "nvmlDeviceGetGpuFabricInfo"][0].get("error")))
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no C compiler here to build the stand-in libnvidia-ml")
def test_fabric_info_is_read_through_a_pointer_on_a_stand_in_libnvidia_ml(tmp_path):
    lib = tmp_path / "libnvidia-ml.so.1"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", str(lib), str(STAND_IN)], check=True)
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path), PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", READ_FABRIC, str(lib)], capture_output=True, text=True, env=env,
                         timeout=60, cwd=REPO)
    assert out.returncode == 0, out.stderr[-800:]
    value, error = (json.loads(line) for line in out.stdout.splitlines()[-2:])
    assert error is None
    assert value == {"state": 3, "status": 0}  # Completed, Success: written by the library through the pointer


def test_the_fabric_struct_is_laid_out_as_nvml_h_says():
    """nvml.h: unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN = 16]; nvmlReturn_t status; unsigned int cliqueId;
    nvmlGpuFabricState_t state (an unsigned char): what NVML writes, whatever layout the installed pynvml has."""
    import ctypes

    from probes.recording import _fabric_info_struct

    info = _fabric_info_struct()
    assert [(name, getattr(info, name).offset) for name, _ in info._fields_] == [
        ("clusterUuid", 0), ("status", 16), ("cliqueId", 20), ("state", 24)]
    assert ctypes.sizeof(info) == 28
