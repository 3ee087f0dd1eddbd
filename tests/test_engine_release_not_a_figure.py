"""A figure beside an engine's name is not its release (issue 11, defect 3).

"vLLM 12.3, SGLang 15.1 tok/s" lists two rates sharing one unit; 12.3 is no vLLM release. A release
is read where the text says so ("v", "==", "version", a pip pin, a third part) or where a bare
"X.Y" lies in the majors the engine has released; real release strings are still read.
"""

import pytest

from diagnose.artifacts.text import engine_release
from diagnose.bundle import read_bundle
from diagnose.evidence import Workload


@pytest.mark.parametrize("text, engine", [
    ("vLLM 12.3, SGLang 15.1 tok/s", "vLLM"),
    ("vLLM 12.3, SGLang 15.1 tok/s", "SGLang"),
    ("vllm 41.2 and TGI 38.9 tokens/s at batch 1", "vllm"),
    ("vllm 41.2 and TGI 38.9 tokens/s at batch 1", "TGI"),
    ("TensorRT-LLM 2.4 vs vLLM 1.9 tok/s", "TensorRT-LLM"),
    ("LMDeploy 0.9 / SGLang 0.7 req/s", "LMDeploy"),  # in range, but a list of rates
    ("Ollama 23.5 t/s, llama.cpp 25.1 t/s", "Ollama"),
    ("SGLang 18.7 and vLLM 16.2 were our tok/s", "SGLang"),  # a figure outside SGLang's releases
    ("vLLM gives 12.3 tok/s", "vLLM"),
    ("we did not upgrade vLLM", "vLLM"),
    ("vLLM 1.5 s to first token", "vLLM"),
])
def test_figures_are_no_release(text, engine):
    assert engine_release(text, engine) is None


@pytest.mark.parametrize("text, engine, release", [
    ("vLLM 0.6.3 is slower than 0.5.4", "vLLM", "0.6.3"),
    ("pip install vllm==0.8.5", "vllm", "0.8.5"),
    ("vLLM version: 0.21.0", "vLLM", "0.21.0"),
    ("SGLang v0.4.1 at 15.1 tok/s", "SGLang", "v0.4.1"),
    ("image ghcr.io/huggingface/text-generation-inference:2.0.4", "text-generation-inference", "2.0.4"),
    ("TGI 2.0 and TGI 1.4 differ", "TGI", "2.0"),
    ("TensorRT-LLM 0.9.0 -> 95 tok/s", "TensorRT-LLM", "0.9.0"),
    ("ollama 0.3.12 on Ubuntu", "ollama", "0.3.12"),
    ("transformers 4.46 with accelerate", "transformers", "4.46"),
    ("we are NOT on vLLM 0.6 anymore", "vLLM", "0.6"),  # a release named in a negation is still that release
    ("vLLM version 12.3 (our fork)", "vLLM", "12.3"),  # the text says it is a version
    ("vllm-0.14.0 wheel", "vllm", "0.14.0"),
])
def test_releases_are_still_read(text, engine, release):
    assert engine_release(text, engine) == release


def test_a_ticket_does_not_take_a_rate_for_the_release(tmp_path):
    (tmp_path / "issue.md").write_text("# Slow decode\n\nOn 2x H100 we measured vLLM 12.3, SGLang 15.1 tok/s for "
                                       "Llama 3 70B at batch 1.\n")
    assert [w.framework for w in read_bundle([str(tmp_path)]).of(Workload) if w.framework] == ["vLLM"]
    (tmp_path / "issue.md").write_text("# Slow decode\n\nAfter upgrading to vLLM 0.6.3 decode fell to 12.3 tok/s.\n")
    assert [w.framework for w in read_bundle([str(tmp_path)]).of(Workload) if w.framework] == ["vLLM 0.6.3"]
