"""(issue 11) Which NCCL a ticket runs when no log prints it: the PyTorch release it names gives the NCCL its wheel
depends on, an engine release that pins one torch gives that torch's (rules/catalog/torch_nccl.toml, read per release
from PyPI); and a known regression that needs a setting the running engine release overrides is ruled out
(rules/catalog/engine_nccl_settings.toml, the regression row's `ruled_out_by`). Lines are from real threads (cited) and
the unscored pastes; the regression texts are paraphrases of other threads than the rows rest on, with negations."""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.artifacts import collect_env, issue_md, torch_release
from diagnose.evidence import Facts, NcclVersion
from rules.catalog import _wheel_rows, engine_nccl_settings, engine_torch, torch_nccl
from rules.claims import version_key
from rules.containers import derive_container_versions

RULE = "nccl.known_regression"


def derived(text: str) -> list[NcclVersion]:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    derive_container_versions(facts)
    return [v for v in facts.of(NcclVersion) if v.derived_from]


def test_every_row_says_where_it_was_read():
    rows = _wheel_rows()
    for r in rows["torch"]:
        assert r["url"] in (f"https://pypi.org/project/torch/{r['release']}/",
                            "https://github.com/pytorch/pytorch/issues/112285"), r
        assert r["nccl"] in r["read"] or r["nccl"].replace(".", ", ") in r["read"], r
    assert {r["release"] for r in rows["torch"] if r.get("pypi")} >= {f"2.{m}.0" for m in range(11)}
    for r in rows["engine"]:
        assert r["url"].startswith("https://pypi.org/project/vllm/") and r["read"], r
        assert all(f"/{x}/" in " ".join([r["url"], *r.get("sources", [])]) for x in r["releases"]), r
    for r in rows["setting"]:
        assert r["sources"] and all(u.startswith("https://") for u in r["sources"]) and r["read"], r
        assert version_key(r["first"]) < version_key(r.get("until") or r["checked_through"]) or \
            r["first"] == r.get("checked_through"), r


def test_one_release_two_wheels():
    # pytorch/pytorch#112285: 2.1.0 from PyPI prints (2, 18, 1), the cu118 wheel (2, 18, 5)
    assert torch_nccl("2.1.0")["nccl"] == "2.18.1" and torch_nccl("2.1.0", "cu121")["nccl"] == "2.18.1"
    assert torch_nccl("2.1.0", "cu118")["nccl"] == "2.18.5"
    assert torch_nccl("2.5.1", "cu118") is None  # a wheel nobody read: unknown, not PyPI's
    assert torch_nccl("2.2")["nccl"] == "2.19.3"  # every 2.2.x wheel brings 2.19.3
    assert torch_nccl("1.13.1") is None and torch_nccl("2.11.0") is None


def test_engine_pins_and_settings_by_release():
    assert engine_torch("vLLM", "0.6.3.post1")["torch"] == "2.4.0"
    assert engine_torch("vllm", "0.8.2")["torch"] == "2.6.0"
    assert engine_torch("vLLM", "0.4.2").get("own_nccl")  # vllm-nccl-cu12 beside torch's NCCL
    assert engine_torch("SGLang", "0.4.3") is None
    assert [s["setting"] for s in engine_nccl_settings("vLLM", "0.5.3")] == ["NCCL_CUMEM_ENABLE=0"]
    assert engine_nccl_settings("vLLM", "0.10.1.1") and not engine_nccl_settings("vLLM", "0.10.2")
    assert not engine_nccl_settings("vLLM", "0.4.2")
    assert {s["setting"] for s in engine_nccl_settings("SGLang", "0.2.14")} == {"NCCL_CUMEM_ENABLE=0",
                                                                               "NCCL_NVLS_ENABLE=0"}
    assert not engine_nccl_settings("SGLang", "0.5.2")  # not read: unknown


@pytest.mark.parametrize("line, release, variant", [
    ("PyTorch version: 2.3.0+cu121", "2.3.0", "cu121"),  # tests/data/ut14/vllm5161.md (vllm#5161)
    ("PyTorch Version: 2.5.1", "2.5.1", ""),  # tests/data/ut15e/sglang4330.md (sglang#4330)
    # https://github.com/vllm-project/vllm/issues/31337: collect_env's newer aligned layout
    ("PyTorch version              : 2.9.0+cu128", "2.9.0", "cu128"),
    # https://github.com/vllm-project/vllm/issues/49224: collect_env's library list
    ("[pip3] torch==2.11.0+cu130", "2.11.0", "cu130"),
    ("torch                             2.2.1", "2.2.1", ""),  # `pip list`'s column format
    ("We run torch 2.4.1 with two L4 cards.", "2.4.1", ""),  # prose (a paraphrase)
])
def test_torch_release_read(line, release, variant):
    (note,) = torch_release.releases([(1, line)], "issue.md")
    assert note.data == {"release": release, "variant": variant}


@pytest.mark.parametrize("line", [
    "PyTorch version: 2.4.0a0+3bcc3cddb5.nv24.07",  # an NGC build: its NCCL is the container's
    "[conda] pytorch                   2.1.0           py3.10_cuda12.1_cudnn8.9.2_0    pytorch",
    "[pip3] torch==2.5.0.dev20240901+cu124",  # a nightly
    "PyTorch version: 2.3.0+rocm6.0",
    "[pip3] torchvision==0.19.0",
    "torch.compile made it 2.5x faster",
    "upgraded from torch==2.1.2",
])
def test_no_torch_release(line):
    assert torch_release.releases([(1, line)], "issue.md") == []


def test_collect_env_file_gives_the_release():
    text = ("Collecting environment information...\nPyTorch version: 2.2.1+cu121\nIs debug build: False\n"
            "CUDA used to build PyTorch: 12.1\n")
    notes = [f for f in collect_env.parse(text, "env.txt") if getattr(f, "kind", "") == "torch_release"]
    assert [n.data for n in notes] == [{"release": "2.2.1", "variant": "cu121"}]


def test_nccl_derived_from_torch_then_engine():
    (v,) = derived("# slow\n\n```\nPyTorch version: 2.3.0+cu121\nIs debug build: False\n```\nTP 2 on two L4.\n")
    assert (v.version, v.derived_from) == ("2.20.5", "torch 2.3.0+cu121")
    (v,) = derived("# slow\n\nvllm==0.6.3.post1 on two L4 with TP 2.\n")
    assert v.version == "2.20.5" and "torch 2.4.0" in v.derived_from
    # what a tool printed or the reporter names wins; two releases, an unread variant or vLLM's own NCCL: unknown
    assert derived("# x\n\n```\nPyTorch version: 2.3.0+cu121\nIs debug build: False\n"
                   "[pip3] nvidia-nccl-cu12==2.21.5\n```\n") == []
    assert derived("# x\n\ntorch 2.3.1 and NCCL 2.21.5 on two L4.\n") == []
    assert derived("# x\n\ntorch 2.1.2 on one box, torch 2.3.1 on the other.\n") == []
    assert derived("# x\n\n```\nPyTorch version: 2.5.1+cu118\n```\n") == []
    assert derived("# x\n\nvllm==0.4.2 and torch 2.3.0 on two L4.\n") == []


# The cuMem + CUDA graph memory regression (NVIDIA/nccl#1234), a paraphrase of vLLM's own capture-OOM reports with the
# release given only by torch.
CAPTURE_OOM = ("# OOM while capturing CUDA graphs with TP 4\n\n```\n{env}\n```\n\n"
               "The engine runs out of memory while capturing CUDA graphs on 4x A10G.\n")


def test_torch_release_places_the_ticket_in_the_range():
    verdict, findings = judged_issue(CAPTURE_OOM.format(env="PyTorch version: 2.2.1+cu121"))
    f = findings[RULE]
    assert f.category == "nccl_regression" and "cumem-cudagraph-memory" in f.title and f.confidence == 0.55
    assert "derived from torch 2.2.1+cu121" in f.summary
    assert any("rules/catalog/torch_nccl.toml" in e.detail for e in f.evidence)
    assert verdict.category == "nccl_regression"
    # torch 2.1.2 brings NCCL 2.18.1, before cuMem became the default: not this row (2.18.1 is inside other rows'
    # ranges, whose symptoms the ticket does not describe: at most an info note, never the verdict)
    verdict, findings = judged_issue(CAPTURE_OOM.format(env="PyTorch version: 2.1.2+cu121"))
    assert RULE not in findings or ("cumem-cudagraph-memory" not in findings[RULE].title
                                    and findings[RULE].severity == "info")
    assert verdict.category != "nccl_regression"


# https://github.com/vllm-project/vllm/issues/15228 ("Out of Memory error for Qwen2.5 in 0.8.0 and 0.8.1. Worked fine
# in the previous versions"): vLLM 0.8.x pins torch 2.6.0 (NCCL 2.21.5, inside the cuMem range) but sets
# NCCL_CUMEM_ENABLE=0 itself, so the capture OOM is not that regression.
VLLM_15228 = ("# [Bug]: Out of Memory error for Qwen2.5 in 0.8.0 and 0.8.1. Worked fine in the previous versions\n\n"
              "vLLM Version: {release}\n\n"
              "```\nINFO 03-20 16:01:38 model_runner.py:1434] Capturing cudagraphs for decoding.\n"
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.\n```\n\n"
              "With TP 2 the server runs out of memory while capturing CUDA graphs.\n")


def test_an_engine_that_sets_the_workaround_rules_the_regression_out():
    verdict, findings = judged_issue(VLLM_15228.format(release="0.8.1"))
    f = findings[RULE]
    assert f.category == "other" and f.severity == "info"
    assert "vLLM 0.8.1 sets NCCL_CUMEM_ENABLE=0 itself" in f.title and "cumem-cudagraph-memory" in f.title
    assert verdict.category != "nccl_regression"
    assert any("engine_nccl_settings.toml" in e.detail for e in f.evidence)


@pytest.mark.parametrize("text", [
    # the same report under vLLM 0.4.2, before vllm#5091: nothing overrides cuMem (NCCL named: 2.19.3)
    "# OOM while capturing CUDA graphs\n\nvLLM 0.4.2 with NCCL 2.19.3, TP 2 on two L4: the server runs out of memory "
    "while capturing CUDA graphs.\n",
    # the reporter sets NCCL_CUMEM_ENABLE=1, which vLLM then leaves alone
    "# OOM while capturing CUDA graphs\n\nvLLM 0.9.2 with NCCL 2.21.5 and NCCL_CUMEM_ENABLE=1 exported, TP 2 on two "
    "L4: the server runs out of memory while capturing CUDA graphs.\n",
    # an engine named without its release: which release ran is unknown
    "# OOM while capturing CUDA graphs\n\nvLLM with NCCL 2.21.5, TP 2 on two L4: the server runs out of memory while "
    "capturing CUDA graphs.\n",
])
def test_not_ruled_out(text):
    verdict, findings = judged_issue(text)
    assert findings[RULE].category == "nccl_regression" and verdict.category == "nccl_regression"


def test_the_alltoall_hang_row_is_ruled_out_by_the_same_setting():
    text = ("# expert all-to-all hangs\n\nvllm==0.6.3 serving a MoE model with expert parallel across 4 nodes; NCCL "
            "2.19.3 is loaded and the alltoall hangs at the first step.\n")
    _, findings = judged_issue(text)
    f = findings[RULE]
    assert f.category == "other" and "cumem-alltoall-connect-hang" in f.title and "vLLM 0.6.3" in f.title


# NVLS buffers at init (2.17-2.21) on an NVSwitch board: NCCL's own WARN line (transport/nvls.cc) under SGLang, which
# sets NCCL_NVLS_ENABLE=0 itself from 0.1.22 (sglang#631) unless --enable-nccl-nvls is given (0.4.x).
NVLS_OOM = ("# OOM at startup with TP 8\n\nRunning Llama 70B with {engine} on a DGX H100.\n\n```\n"
            "h100-01:1234:1290 [3] NCCL INFO NCCL version 2.19.3+cuda12.3\n"
            "h100-01:1234:1290 [3] transport/nvls.cc:158 NCCL WARN Cuda failure 'out of memory'\n"
            "h100-01:1234:1290 [3] NCCL INFO init.cc:1100 -> 1\n```\n")


@pytest.mark.parametrize("engine, ruled_out", [
    ("sglang==0.2.14 and TP 8", True),
    ("sglang==0.4.3 launched with --enable-nccl-nvls and TP 8", False),
    ("sglang==0.5.2 and TP 8", False),  # a release nobody read
    ("vllm==0.6.3 and TP 8", False),  # vLLM leaves NVLS alone
])
def test_sglang_nvls_setting(engine, ruled_out):
    verdict, findings = judged_issue(NVLS_OOM.format(engine=engine))
    f = findings[RULE]
    assert "nvls-init-memory" in f.title
    assert (f.category == "other" and "sets NCCL_NVLS_ENABLE=0 itself" in f.title) == ruled_out
    assert (verdict.category == "nccl_regression") != ruled_out


@pytest.mark.parametrize("paste, version, source", [
    # https://github.com/vllm-project/vllm/issues/5161 (WSL2, TP 2 fails): collect_env's torch only
    ("ut14/vllm5161.md", "2.20.5", "torch 2.3.0+cu121"),
    # https://github.com/sgl-project/sglang/issues/4330 (--mem-fraction-static OOM): the setup list's torch
    ("ut15e/sglang4330.md", "2.21.5", "torch 2.5.1"),
])
def test_unscored_pastes_get_their_torch_nccl_and_no_regression(paste, version, source):
    text = (Path(__file__).parent / "data" / paste).read_text()
    assert [(v.version, v.derived_from) for v in derived(text)] == [(version, source)]
    verdict, findings = judged_issue(text)
    assert verdict.category != "nccl_regression" and (RULE not in findings or findings[RULE].category == "other")


@pytest.mark.parametrize("text, framework, nccl", [
    # https://github.com/vllm-project/vllm/issues/10453 (its own log then prints "vLLM is using nccl==2.21.5")
    ("# [Bug] torch.distributed.DistBackendError: NCCL error in docker.io/vllm/vllm-openai:v0.6.4.post1\n\n"
     "I tried to run model in docker.io/vllm/vllm-openai:v0.6.4.post1\n", "vllm v0.6.4.post1", "2.21.5"),
    # https://github.com/vllm-project/vllm/issues/20862: the prose names vLLM, the docker run line its release
    ("# [Usage]: vLLM Server Launch Freezes at Using NCCL on B200\n\nHere is the command:\n```bash\n"
     "docker run --rm --network bmk-net --name bmk-server --runtime nvidia --gpus all --ipc host --privileged "
     "vllm/vllm-openai:v0.9.1 --model nvidia/Llama-3.1-70B-Instruct-FP8 --port 8888 --tensor-parallel-size 2\n```\n",
     "vLLM v0.9.1", "2.26.2"),
    # https://github.com/vllm-project/vllm/issues/21491: "latest" names no release, so no torch and no NCCL
    ("# [Bug]: Tensor parallelism on sm_120 (rtx 5090) is broken on latest docker\n\ndocker run -d --runtime nvidia "
     "--gpus all -p 8002:8000 --ipc=host vllm/vllm-openai:latest --model openai/whisper-large-v3 "
     "--tensor-parallel-size 2\n", "vllm", None),
])
def test_the_engine_image_tag_gives_the_release(text, framework, nccl):
    from diagnose.evidence import Workload

    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    derive_container_versions(facts)
    assert [w.framework for w in facts.of(Workload) if w.framework][0] == framework
    assert [v.version for v in facts.of(NcclVersion)] == ([nccl] if nccl else [])
