"""The review of the offload model (rules/offload.py, rules/ticket_offload.py, rules/predict_offload.py): what the
host's memory is read from, the flags that ask for an offload, the physical limits of a request. Sentences are written
the way reporters, nvidia-smi, dmidecode and lscpu write them, with negatives beside each positive."""

import pytest
from test_offload_11w import _platform, _verdict

from diagnose.evidence import Facts, Note
from rules import claims


def _speeds(text: str) -> list:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return [c.data["mts"] for c in claims.host_platform(facts) if c.data.get("mts")]


@pytest.mark.parametrize("text", [
    "Max Clocks\n    Graphics                          : 3120 MHz\n    Memory                            : 10501 MHz",
    "Clocks: Graphics : 2520 MHz, SM : 2520 MHz, Memory : 2619 MHz, Video : 1965 MHz",
    "the GPU boosts to 2610 MHz and the memory clock sits at 2619 MHz",
])
def test_gpu_clocks_are_not_the_hosts_memory_speed(text):
    assert _speeds(text) == []


@pytest.mark.parametrize("text, mts", [
    ("Configured Memory Speed: 3200 MHz", 3200),
    ("\tSpeed: 2933 MHz", 2933),
    ("128 GB of 3600MHz RAM in four DIMMs", 3600),
    ("DDR4 at 3200 MHz", 3200),
    ("64GB 6400MHz DDR5", 6400),
    ("memory runs at 4800 MT/s", 4800),
])
def test_a_memory_speed_beside_memory_words_is_read(text, mts):
    assert _speeds(text) == [mts]


def test_a_speed_alone_leaves_the_generation_to_the_cpu(tmp_path):
    """A bare speed names no generation: an EPYC 9654 (DDR5) stays DDR5 whatever the text's clocks say."""
    assert _platform("Configured Memory Speed: 3200 MHz").get("ddr") is None
    _, found = _verdict(tmp_path, "# DeepSeek-V3 slow with ktransformers\n\nI run DeepSeek-V3 Q4_K_M with "
                                  "ktransformers on one RTX 4090, host is an AMD EPYC 9654.\nDecode is 6 tok/s at "
                                  "batch 1.\n\nnvidia-smi -q:\n    Max Clocks\n"
                                  "        Graphics                          : 3120 MHz\n"
                                  "        SM                                : 3120 MHz\n")
    details = " ".join(e.detail or "" for e in found["ticket.offload_rate"].evidence)
    assert "DDR5-4800" in details and "DDR4" not in details


def _may_run_quantised(tmp_path, text: str) -> bool:
    from diagnose.bundle import read_bundle
    from rules import workload

    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "issue.md").write_text(text)
    return workload.may_run_quantised(read_bundle([folder]))


@pytest.mark.parametrize("flag, offloads", [
    ("--cpu-offload-gb 0.5", True),
    ("--cpu-offload-gb=0.25", True),
    ("cpu_offload_gb=2", True),
    ("--cpu-offload-gb 0", False),
    ("--cpu-offload-gb 0.0", False),
])
def test_a_fractional_cpu_offload_is_an_offload_and_only_zero_is_none(tmp_path, flag, offloads):
    """An engine that keeps every weight on the GPU ran a model too big for it quantised, unless weights were
    offloaded: 0.5 GiB is an offload, 0 or 0.0 (the default written out) is none."""
    text = (f"Serving Llama-3-70B-Instruct with vLLM on 2x L40S, tensor parallel 2, started with {flag}. "
            "Decode is 2 tok/s for one request.")
    assert _may_run_quantised(tmp_path, text) is not offloads


@pytest.mark.parametrize("text", [
    "I have 2 CPUs and one RTX 4090",
    "docker run --gpus all --cpus 2 vllm/vllm-openai",
    "llama.cpp with two CPU threads is slow",
    "NCCL INFO Using 24 channels",
    "NCCL INFO 8 coll channels, 8 p2p channels",
    "the audio interface records 8 channels at 48 kHz",
])
def test_cpu_counts_and_other_channels_are_not_the_host(text):
    got = _platform(text)
    assert "sockets" not in got and "channels" not in got


@pytest.mark.parametrize("text, expect", [
    ("a dual-socket Genoa box", {"sockets": 2}),
    ("2P EPYC server with 24 DIMMs", {"sockets": 2}),
    ("dual CPU Xeon board", {"sockets": 2}),
    ("8-channel DDR5 workstation", {"channels": 8}),
    ("12 memory channels populated", {"channels": 12}),
    ("a 12-channel EPYC 9654", {"channels": 12}),
    ("the box has 12 channels populated with 64GB RDIMMs", {"channels": 12}),
])
def test_sockets_and_memory_channels_in_their_own_words(text, expect):
    got = _platform(text)
    assert {k: got.get(k) for k in expect} == expect


@pytest.mark.parametrize("args", [
    ("--tp", "2", "--cpu-layers", "10"),  # the offload is priced for one GPU; TP2 alone would print no offload line
    ("--tp", "1", "--pp", "2", "--cpu-layers", "10"),
    ("--tp", "1", "--batch", "8", "--cpu-layers", "10"),
    ("--tp", "1", "--cpu-offload-gb", "4", "--host", "EPYC 9654"),  # a PCIe copy reads no host memory channel
    ("--tp", "1", "--cpu-offload-gb", "4", "--host-mts", "4800"),
])
def test_offload_options_predict_would_ignore_are_refused(args):
    from conftest import diagnose

    result = diagnose("predict", "--model", "llama-3-8b", "--gpu", "rtx-4090", *args)
    assert result.exit_code == 2 and "Traceback" not in result.output + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_sweep_that_holds_tp1_still_prices_the_offload():
    from test_offload_11w import _offload_finding

    assert "10 of 32 layers" in _offload_finding("--model", "llama-3-8b", "--gpu", "rtx-4090", "--tp", "1,2",
                                                 "--cpu-layers", "10")["title"]


def test_an_offload_band_has_width_even_with_nothing_on_the_cpu():
    """A PCIe-only offload reads no host memory, yet the GPU's share keeps the predictor's band: low < high."""
    from test_offload_11w import _offload_finding

    title = _offload_finding("--model", "llama-3-70b", "--gpu", "rtx-4090", "--cpu-offload-gb", "10")["title"]
    low, high = map(float, title.split("band ")[1].split(")")[0].split("-"))
    assert low < high


@pytest.mark.parametrize("args", [
    ("--tp", "1", "--cpu-offload-gb", "99999"),  # more than the model's weights
    ("--tp", "1", "--cpu-layers", "10", "--host-channels", "24", "--sockets", "8"),  # no socket has 24 channels
])
def test_an_offload_no_machine_could_hold_is_refused(args):
    from conftest import diagnose

    result = diagnose("predict", "--model", "llama-3-70b", "--gpu", "rtx-4090", "--quant", "Q4_K_M", *args)
    assert result.exit_code == 2 and "Traceback" not in result.output + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_offload_is_never_faster_than_all_in_vram():
    """Eight 12-channel DDR5-6400 sockets out-read one layer's share of the GPU; the offload still cannot be faster."""
    from test_offload_11w import _offload_finding

    f = _offload_finding("--model", "llama-3-8b", "--gpu", "rtx-4090", "--cpu-layers", "1", "--host-channels", "12",
                         "--host-mts", "6400", "--sockets", "8")
    expected = f["evidence"][0]["expected"]
    vram = next(e["expected"] for e in f["evidence"] if e["source"] == "prediction:expected")
    assert expected <= vram


def test_channels_without_a_speed_say_the_speed_is_assumed():
    from test_offload_11w import _offload_finding

    f = _offload_finding("--model", "llama-3-70b", "--gpu", "rtx-4090", "--quant", "Q4_K_M", "--cpu-layers", "10",
                         "--host-channels", "8")
    host = next(e for e in f["evidence"] if e["source"] == "rules/catalog/host_memory.toml")
    assert host["detail"].startswith("assumed") and "3200" not in host["detail"]


def test_the_offload_is_priced_on_the_layout_the_ticket_states(tmp_path):
    """vLLM's --cpu-offload-gb is per GPU; under tensor parallel 2 each rank reads half the weights, so the all-in-VRAM
    figure the offload is scaled from is TP2's, faster than one GPU's."""
    def vram(folder: str, layout: str) -> float:
        (tmp_path / folder).mkdir()
        _, found = _verdict(tmp_path / folder, f"Serving Llama-3-8B-Instruct with vLLM {layout}, started with "
                                               "--cpu-offload-gb 2. Decode is 3 tok/s for one request.")
        f = found["ticket.offload_rate"]
        return next(e.expected for e in f.evidence if e.source == "prediction:expected")

    assert vram("tp2", "on 2x RTX 4090, --tensor-parallel-size 2") > vram("tp1", "on one RTX 4090")


@pytest.mark.parametrize("engine, resident", [
    ("DeepSpeed-Inference (init_inference)", True),
    ("vLLM", True),
    ("llama.cpp", False),
])
def test_one_list_of_engines_that_keep_every_weight_on_the_gpu(tmp_path, engine, resident):
    """The engines that load the whole model onto the GPUs (workload.GPU_RESIDENT, read by the quantised-run, offload
    and partial-offload rules alike): a checkpoint too big for the GPUs under them ran quantised, as under vLLM."""
    text = f"Llama-3-70B-Instruct with {engine} on 2x L40S, tensor parallel 2. Decode is 9 tok/s for one request."
    assert _may_run_quantised(tmp_path, text) is resident


@pytest.mark.parametrize("said, offloads", [
    ("I offload part of the model to system RAM.", True),
    ("Some layers run on the CPU.", True),
    ("cpu_offload_gb=4 in the LLM() call.", True),
    ("Nothing is offloaded to the CPU.", False),
    ("--cpu-offload-gb 0 is set.", False),
])
def test_the_quantised_run_reads_the_offload_through_the_one_reader(tmp_path, said, offloads):
    """may_run_quantised and the offload rules read an offload the same way (claims.partial_offload)."""
    text = f"Llama-3-70B-Instruct with vLLM on 2x L40S, tensor parallel 2. {said} Decode is 9 tok/s for one request."
    assert _may_run_quantised(tmp_path, text) is not offloads


def test_the_share_centre_counts_each_machine_once_and_only_decode():
    """host_memory.toml's [[achieved]] rows: decode only (a copy benchmark is not decode), and a box measured twice
    moves its kind's centre (dense layers or routed experts) as one machine, not two."""
    import statistics

    from rules import offload

    rows = offload._table()["achieved"]
    assert all("tok/s" in r["what"] for r in rows)  # each row states the decode rate it was read from
    for kind in ("dense", "experts"):
        machines: dict = {}
        mine = [r for r in rows if r.get("reads", "dense") == kind]
        for r in mine:
            machines.setdefault(r["machine"], []).append(r["achieved_gbs"] / r["peak_gbs"])
        assert len(machines) < len(mine)  # the dual EPYC 9175F, the Xeon Gold 6454S were measured twice or more
        _, mid, _ = offload.achieved_share(kind)
        assert mid == pytest.approx(statistics.median(statistics.median(v) for v in machines.values()))


_USER_CPU = """[[cpu]]
family = "Example Z9 (a user's CPU)"
pattern = '\\bZ9-\\d{4}\\b'
class = "server"
channels = 16
ddr = "ddr5"
mts = 8000
"""


@pytest.mark.parametrize("how", ["--catalog", "DIAGNOSE_CATALOG"])
def test_a_users_catalog_file_adds_cpu_families(tmp_path, how):
    """host_memory.toml is read through rules.catalog: a --catalog file or $DIAGNOSE_CATALOG adds a CPU family."""
    import json

    from conftest import diagnose

    path = tmp_path / "cpu.toml"
    path.write_text(_USER_CPU)
    args = ["predict", "--model", "llama-3-70b", "--gpu", "rtx-4090", "--tp", "1", "--quant", "Q4_K_M",
            "--cpu-layers", "40", "--host", "Z9-1234", "--json"]
    result = diagnose(*args[:1], "--catalog", path, *args[1:]) if how == "--catalog" else \
        diagnose(*args, env={"DIAGNOSE_CATALOG": str(path)})
    assert result.exit_code == 0, result.output + result.stderr
    (f,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "predict.offload"]
    assert any("16 x DDR5-8000" in (e["detail"] or "") for e in f["evidence"])


def test_a_users_cpu_row_without_its_channels_is_bad_input(tmp_path):
    from conftest import diagnose

    path = tmp_path / "cpu.toml"
    path.write_text(_USER_CPU.replace("channels = 16\n", ""))
    result = diagnose("predict", "--catalog", path, "--model", "llama-3-70b", "--gpu", "rtx-4090", "--tp", "1",
                      "--cpu-layers", "40", "--host", "Z9-1234")
    assert result.exit_code == 2 and "Traceback" not in result.output + result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "channels" in result.stderr
