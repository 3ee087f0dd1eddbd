"""Pass c50g: the MoE experts computed on the CPU by the engine's design (KTransformers' expert offload; llama.cpp's
--cpu-moe) while the reporter asks about the GPU side. Three threads were answered by that design and called healthy
or left undecided: b50c/ktransformers312 (GPU compute 15 % on an H100, "is the multi-GPU rule needed?"),
ut27a/ktr881 ("may the experts' generate_device go to cuda:0, is it faster then?"), c50g/ktransformers537 ("how do I
use more of four A100s' memory?"). ticket.cpu_experts answers them expected_physics; questions about the host's RAM
(physics41/kt451, rightly healthy), failures, and engines that hold every weight in VRAM stay as they were.
"""

import pytest
from conftest import issue_bundle, judged_issue, judged_kept_paste

from rules import claims


@pytest.mark.parametrize("rel", [
    "b50c/ktransformers312.md",   # kvcache-ai/ktransformers#312: multi-GPU support pending, experts stay on the CPU
    "ut27a/ktr881.md",            # kvcache-ai/ktransformers#881: experts on cuda:0 lose CUDA graphs, no faster
    "c50g/ktransformers537.md",   # kvcache-ai/ktransformers#537: ~14 GB of VRAM is all it needs; CPU and RAM set it
])
def test_cpu_experts_answer_the_gpu_side_question(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert "ticket.cpu_experts" in found
    assert verdict.category == "expected_physics"


@pytest.mark.parametrize("rel, category", [
    ("physics41/kt451.md", "healthy"),        # a question about the host's RAM use: "this is not a problem"
    ("c50g/ktransformers561.md", "eager_mode"),  # experts on the GPU slower with CUDA graphs off: the launches
])
def test_other_ktransformers_questions_keep_their_answer(tmp_path, rel, category):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert "ticket.cpu_experts" not in found
    assert verdict.category == category


@pytest.mark.parametrize("text", [
    # negation: the engine ruled out
    "# Using more VRAM\n\nWe don't use ktransformers here, only vLLM on 4 A100. How can I use more of the GPU memory "
    "to go faster?\n",
    # the same words about another thing: the host's RAM, not the GPU
    "# Only 10GB memory used\n\nI run `python -m ktransformers.local_chat --model_path /m --gguf_path /g --cpu_infer "
    "60` on 2 A100. The RAM shows only 10 GB used while the CPU is at full load, what is wrong?\n",
    # a failure asked about on the GPUs
    "# multi-gpu yaml fails\n\nRunning `python -m ktransformers.local_chat --model_path /m --gguf_path /g "
    "--optimize_rule_path DeepSeek-V3-Chat-multi-gpu.yaml` on 2 GPUs crashes with RuntimeError: CUDA error: an illegal "
    "memory access was encountered. How do I run it on two GPUs?\n",
    # a past state: the engine left for one that keeps every weight in VRAM
    "# Low GPU use\n\nI used to run ktransformers, but I moved to vLLM. Now on 4 A100 the GPU utilisation is 15 %; how "
    "can I use more of the GPUs?\n",
    # no speed asked: which GPU to load on, whether a card is supported
    "# second GPU\n\nI run `python -m ktransformers.local_chat --model_path /m --gguf_path /g` on a 4080 and a 3090. "
    "How do I make it load on the second GPU instead of the first?\n",
    "# 5090\n\nI run `python -m ktransformers.local_chat --model_path /m --gguf_path /g`. Does it support the RTX 5090 "
    "GPU?\n",
    # another engine's low utilisation
    "# Low GPU use\n\nWith vLLM serving Qwen2-7B on one A100 the GPU utilisation is only 15 %. Is that normal for the "
    "GPU?\n",
    # (r50d) the engine ruled out after its name, named only as a comparison, the experts' flag taken out or left in
    # the past, the whole model said to be in VRAM, and "more" of something other than the GPUs
    "# Faster?\n\nktransformers is not an option for me. I run `llama-server -m qwen3-30b-a3b-q4_k_m.gguf -ngl 99` on "
    "one RTX 4090, the whole model is in VRAM. How can I use more of the GPU to make it faster?\n",
    "# Faster?\n\nCompared with ktransformers, ollama feels slow. `ollama ps` shows qwen3:30b 100% GPU on my RTX 4090. "
    "How can I use more of the GPU to make it faster?\n",
    "# solved\n\nI removed --cpu-moe and now all experts are on the GPUs. Before, GPU utilization was 20 %. Is there a "
    "way to use more of the GPU memory for context?\n",
    "# Low GPU\n\nI used to run llama.cpp with --cpu-moe, but now all experts are on the GPU with -ngl 99 on two "
    "3090s. GPU utilization is 40 %. How can I use more of the GPUs?\n",
    "# Slow\n\nktransformers is faster than this for me. With `llama-server -m model.gguf -ngl 99 -fa` on one RTX 4090 "
    "the GPU utilization is only 35 %, is that normal for the GPU?\n",
    "# question\n\nI run `python -m ktransformers.local_chat --model_path /m --gguf_path /g --cpu_infer 60` on 2 A100. "
    "Output looks fine. Do you need more info about my GPU setup to add it to the supported list?\n",
])
def test_near_misses_do_not_read_cpu_experts(text):
    _, found = judged_issue(text)
    assert "ticket.cpu_experts" not in found


def test_gpu_side_asked_reads_the_question_not_the_report():
    asked = claims.gpu_side_asked(issue_bundle("# q\n\nThe decode is 4 tok/s. How can I use more of the GPU memory?\n"))
    assert asked is not None and "GPU" in asked.quote
    assert claims.gpu_side_asked(issue_bundle("# q\n\nThe GPU holds 14 GB. Why is the RAM use so low?\n")) is None
