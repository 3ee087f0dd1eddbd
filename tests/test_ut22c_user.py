"""Defects found by answering real public threads as a support engineer (session s22, tests/data/ut22c; SOURCES.md
gives each thread's address and the verdict before and after), each fixed in general and tested here on the paste that
showed it, on another real sentence from a different thread and on text written here (paraphrases, negations):

- a card or platform said not to support P2P not read: accelerate's refusal on GeForce RTX 40xx boards, "Using RTX
  4000 series doesn't support faster communication broadband via P2P or IB" (QwenLM/Qwen-VL#447, answered: set
  NCCL_P2P_DISABLE=1 and NCCL_IB_DISABLE=1; the message is huggingface/accelerate's, src/accelerate/state.py) left
  insufficient_data; "P2P is not supported" was read, "does not support P2P" (NVIDIA/nccl#1127) was not;
- an engine named only by its own environment setting not read: "I configured the environment variable
  OLLAMA_SCHED_SPREAD=1 and used 2 GPU cores" (ollama/ollama#8365, a Tesla M60 box, answered: a model that fits one GPU
  gains nothing from more; Ollama runs the layers one GPU after another) was explained as tensor-parallel ranks waiting
  on each other's all-reduce, where each GPU of a layer split is busy about 1/n of the time;
- a slowdown put down to the NCCL release itself not read as a change of release: "suboptimal performance on H100
  multi-node due to Incompatible NCCL" (sgl-project/sglang#5980, whose images had nvidia-nccl-cu12 upgraded to 2.26.2)
  left insufficient_data; "because of the problems introduced by the NCCL version" (NVIDIA/nccl#173) neither;
- a sentence naming an NCCL release read as NCCL's own printed version line: "this method uses the NCCL version
  2.18.5+cuda11.8 as opposed to version 2.14.3 used by the container" (mila-iqia/milabench#183) made 2.18.5, the
  release that works, the one "in use".
"""

from pathlib import Path

from conftest import judged_file

from diagnose.artifacts import issue_md
from diagnose.artifacts.text import engine_named
from diagnose.evidence import Facts, Workload
from rules import claims

DATA = Path(__file__).parent / "data" / "ut22c"


def said(text: str, kind: str) -> list:
    """The claims of `kind` read from `text` pasted as an issue, negated or not."""
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return [c for c in claims.claims(facts) if c.kind == kind]


def affirmed(text: str, kind: str) -> bool:
    return any(not c.negated and not c.guess for c in said(text, kind))


# --------------------------------------------------------------------------- "doesn't support ... via P2P"

def test_p2p_not_supported_is_p2p_refused(tmp_path):
    assert affirmed((DATA / "qwenvl447.md").read_text(), "no_p2p")
    verdict, found = judged_file(tmp_path, DATA, "qwenvl447")
    assert verdict.category == "p2p_disabled"
    assert "ticket.p2p_refused" in found
    # the same refusal in other threads (OpenBMB/MiniCPM-V#325; accelerate's earlier wording, quoted in
    # huggingface/accelerate#2328's subject), the card said without P2P in another (NVIDIA/nccl#1127), and paraphrases
    for text in ("NotImplementedError: Using RTX 4000 series doesn't support faster communication broadband via P2P "
                 'or IB. Please set `NCCL_P2P_DISABLE="1"` and `NCCL_IB_DISABLE="1" or use `accelerate launch` which '
                 "will do this automatically.",
                 "NotImplementedError: Using RTX 3090 or 4000 series doesn't support faster communication broadband "
                 "via P2P or IB.",
                 "I attempted to search online, and it seems that the RTX 4090 does not support P2P.",
                 "Our two L40S cards cannot support peer-to-peer transfers on this board.",
                 "The RTX 5090 does not support P2P with the stock driver."):
        assert said(text, "no_p2p"), text


def test_p2p_not_supported_negations():
    # P2P supported, asked about, or another feature refused with P2P named after it in another clause
    for text in ("NVLinked 3090s support p2p.",  # huggingface/accelerate#2328
                 "Does the RTX 3090 support P2P communication?",  # NVIDIA/nccl#1127
                 "The card doesn't support NVLink, only P2P over PCIe.",
                 "The driver supports P2P between the two A6000s and p2pBandwidthLatencyTest shows 25 GB/s."):
        assert not said(text, "no_p2p"), text


# --------------------------------------------------------------------------- "due to Incompatible NCCL"

def test_slowdown_put_down_to_the_nccl_release(tmp_path):
    assert affirmed((DATA / "sglang5980.md").read_text(), "nccl_upgrade")
    verdict, found = judged_file(tmp_path, DATA, "sglang5980")
    assert verdict.category == "nccl_regression"
    assert "ticket.nccl_upgrade" in found
    # another thread (NVIDIA/nccl#173: 2.3.5 slower past six nodes, 2.1.5 normal) and paraphrases
    for text in ("But obviously this is because of the problems introduced by the NCCL version.",
                 "The all-reduce got 30 % slower on 8 A100, caused by the new NCCL version in the image.",
                 "The hang comes from the NCCL upgrade that PyTorch 2.3 pulled in.",
                 "Decode fell from 40 to 25 tok/s due to a buggy NCCL release."):
        assert affirmed(text, "nccl_upgrade"), text


def test_slowdown_put_down_to_the_nccl_release_negations():
    # ruled out, guessed, NCCL named without a change, a fix that a release brought
    assert all(c.negated for c in said("The slowdown is not due to the NCCL upgrade; it comes from the scheduler.",
                                       "nccl_upgrade"))
    assert all(c.guess for c in said("Maybe it is due to an incompatible NCCL?", "nccl_upgrade"))
    for text in ("We use the NCCL that comes from the PyTorch wheel.",
                 "The slowdown is due to NCCL falling back to sockets.",
                 "The fix was introduced by the NCCL 2.18.6 release."):
        assert not said(text, "nccl_upgrade"), text


# --------------------------------------------------------------------------- "uses the NCCL version 2.18.5 as ..."

def printed_versions(text: str) -> list[str]:
    from diagnose.artifacts import nccl_log

    return [v.version for v in nccl_log.parse(text, "log.txt") if type(v).__name__ == "NcclVersion"]


def test_a_sentence_naming_a_release_is_no_printed_version():
    # mila-iqia/milabench#183: the failing container's NCCL is 2.14.3, the working install's 2.18.5; the sentence that
    # compares them was read as NCCL's own init line, 2.18.5 "in use"
    text = (DATA / "milabench183.md").read_text()
    assert "2.18.5" not in printed_versions(text)
    for line in ("The main difference is that this method uses the NCCL version 2.18.5+cuda11.8 as opposed to "
                 "version 2.14.3 used by the container.",
                 "Would it be possible to build the container using NCCL version 2.18.5+cuda11.8 please?",
                 "We tested our NCCL version 2.21.5 on both nodes."):
        assert not printed_versions(line), line


def test_printed_versions_still_read():
    # NCCL's init line (NCCL_DEBUG=INFO), PyTorch's error tail (vllm-project/vllm#4341), one pasted on one line with the
    # error name after it, and the nccl-tests header
    for line, version in (("node1:2:774 [0] NCCL INFO NCCL version 2.19.3+cuda12.3", "2.19.3"),
                          ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
                           "ProcessGroupNCCL.cpp:1691, unhandled cuda error (run with NCCL_DEBUG=INFO for details), "
                           "NCCL version 2.19.3", "2.19.3"),
                          ("unhandled cuda error, NCCL version 2.19.3 ncclUnhandledCudaError: Call to CUDA function "
                           "failed.", "2.19.3"),
                          ("NCCL version 2.21.5+cuda12.4", "2.21.5")):
        assert printed_versions(line) == [version], line


# --------------------------------------------------------------------------- OLLAMA_SCHED_SPREAD=1 names Ollama

def test_engine_named_by_its_own_setting(tmp_path):
    text = (DATA / "ollama8365.md").read_text()
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    assert any((w.framework or "").lower() == "ollama" for w in facts.of(Workload))
    verdict, found = judged_file(tmp_path, DATA, "ollama8365")
    assert verdict.category == "healthy"  # as the corpus labels a layer split's 1/n utilisation (s018, s022)
    assert "layer split" in found["ticket.gpu_utilisation"].title
    # another thread's command (vllm-project/vllm#22331) and the settings as the engines' docs write them
    for line, engine in (('docker run -it --rm --gpus all --env "VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1" '
                          "--tensor-parallel-size=2 --model openai/gpt-oss-120b", "VLLM"),
                         ("export OLLAMA_NUM_PARALLEL=4 and the model loads on both cards", "OLLAMA"),
                         ("SGLANG_ENABLE_TORCH_COMPILE=1 python -m launch_server --tp 2", "SGLANG")):
        assert engine_named(line) == engine, line


def test_engine_setting_negations():
    # another engine's setting about a vLLM kernel (sgl-project/sglang#4436), a lower-case path, NCCL's own settings,
    # and the engine named before its setting is still the name read first
    for line in ("export USE_VLLM_CUSTOM_ALLREDUCE=0", "models live in /data/ollama_models/",
                 "NCCL_P2P_DISABLE=1 NCCL_IB_DISABLE=1 python run.py"):
        assert engine_named(line) is None, line
    assert engine_named("sglang with VLLM_USE_V1=0 set by mistake") == "sglang"
