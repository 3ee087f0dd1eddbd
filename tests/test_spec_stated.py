"""Issues 10/11: speculative decoding stated (launch flags or the reporter's words) without an acceptance length
printed. One stream's rate above the plain-decode band is then judged against the plain band times the tokens a
verify step keeps as published for the method (rules/catalog/speculative.toml); a negation or a plan is not
speculation, and a rate with none stated is judged as before."""

import json

import pytest
from conftest import REPO, diagnose

from diagnose.artifacts import launch
from diagnose.evidence import Facts
from rules import speculation

ISSUES = REPO / "tests" / "data" / "issues"


def stated_by(command: str):
    facts = Facts()
    for record in launch.parse(command, "run.sh"):
        facts.add(record)
    return speculation.stated(facts)


@pytest.mark.parametrize("command, method, tokens", [
    # https://github.com/vllm-project/vllm/pull/24127 (the serve command, escaped JSON as posted)
    ((ISSUES / "vllm-24127-specdecoding-metrics-line.md").read_text().split("```")[1], "ngram", 5),
    # https://docs.vllm.ai/en/v0.9.1/features/spec_decode.html (a draft model in --speculative_config)
    ("""vllm serve facebook/opt-6.7b --seed 42 -tp 1 --gpu_memory_utilization 0.8 \\
    --speculative_config '{"model": "facebook/opt-125m", "num_speculative_tokens": 5}'""", "draft_model", 5),
    # https://github.com/vllm-project/vllm/pull/6830 (the older --speculative-model spelling)
    ("python3 benchmarks/benchmark_latency.py --model Qwen/Qwen2-7B-Instruct --speculative-model "
     "yuhuili/EAGLE-Qwen2-7B-Instruct --num_speculative_tokens 4 --use-v2-block-manager --batch-size 1 "
     "--input-len 1024 --output-len 128 --max-model-len 2048", "eagle", 4),
    # https://github.com/sgl-project/sglang/pull/2150 (argparse prefixes --speculative-algo/--speculative-draft)
    ("python3 -m sglang.launch_server --model meta-llama/Llama-2-7b-chat-hf  --speculative-algo EAGLE "
     "--speculative-draft lmzheng/sglang-EAGLE-llama2-chat-7B --speculative-num-steps 5 --speculative-eagle-topk 8 "
     "--speculative-num-draft-tokens 64 --mem-fraction 0.7", "eagle", 5),
    # https://github.com/ggml-org/llama.cpp/pull/24593 (llama-server with an EAGLE-3 draft)
    ("""./build_9626/bin/llama-server \\
--verbosity 4 \\
-m /home/abdulrahman/Personal/Programs/llama/models/Qwen/Qwen3.6-27B-Q4_K_M_MTP.gguf \\
-md /home/abdulrahman/Personal/Programs/llama/models/Qwen/Qwen3.6-27B-EAGLE3-PRISM.gguf \\
--temperature 0.6 --top-p 0.95 --top-k 20 --min-p 0.00 --presence-penalty 0.0 --repeat-penalty 1.0 \\
--jinja -fa on \\
--spec-type draft-eagle3 \\
--spec-draft-n-max 8 \\
--spec-draft-p-min 0.5 \\
-c 100000 -np 1 -ngl 999""", "eagle3", 8),
    # https://github.com/NVIDIA/TensorRT-LLM/tree/main/examples/medusa (the engine build)
    ("""trtllm-build --checkpoint_dir ./tllm_checkpoint_1gpu_medusa \\
             --output_dir ./tmp/medusa/7B/trt_engines/fp16/1-gpu/ \\
             --gemm_plugin float16 \\
             --speculative_decoding_mode medusa \\
             --max_batch_size 4""", "medusa", None),
    # SGLang's MTP algorithm name (NEXTN) with the flags https://docs.sglang.io/advanced_features/speculative_decoding.html
    # documents (written for this test, not quoted)
    ("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --speculative-algorithm NEXTN "
     "--speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4", "mtp", 3),
])
def test_each_engines_launch_flags(command, method, tokens):
    s = stated_by(command)
    assert (s.method, s.draft_tokens) == (method, tokens)


def test_a_launch_line_without_speculation_states_none():
    assert stated_by("vllm serve meta-llama/Meta-Llama-3-8B-Instruct --tensor-parallel-size 2 --max-num-seqs 8") \
        is None


@pytest.mark.parametrize("words, method", [
    ("Qwen3.6-27B 4-bit on a 3090 with MTP: 72 tok/s", "mtp"),
    ("Llama-3-8B with EAGLE: 150 tok/s", "eagle"),
    ("we serve it using EAGLE-3 and get 180 tok/s", "eagle3"),
    ("running a draft model (Llama-3.2-1B) beside it", "draft_model"),
    ("speculative decoding is on, one request at a time", "unnamed"),
    ("MTP enabled, num_speculative_tokens=3", "mtp"),
    ("with prompt lookup decoding the summaries come out at 90 tok/s", "ngram"),
    # not what ran: a negation, a plan, a question
    ("without speculative decoding: 110 tok/s", "off"),
    ("spec decode off, plain decode only", "off"),
    ("no MTP here, just the base model", "off"),
    ("should I try EAGLE for this?", None),
    ("Would using speculative decoding help?", None),
    ("I get 45 tok/s on one 4090", None),
])
def test_the_reporters_words(words, method):
    found = speculation._from_words(words)
    assert (found[0] if found else None) == method


def ticket(tmp_path, text: str) -> dict:
    folder = tmp_path / "case"
    folder.mkdir(parents=True)
    (folder / "issue.md").write_text(text)
    result = diagnose("ticket", folder, "--json")
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_sglang_eagle_on_one_h100_is_physics(tmp_path):
    """https://github.com/sgl-project/sglang/pull/2150: Llama-2-7B on one H100, 297 tok/s with EAGLE (156 without):
    above one stream's plain roofline, inside it times EAGLE's published tokens a step."""
    report = ticket(tmp_path, (ISSUES / "sglang-2150-eagle-297-tokps-one-h100.md").read_text())
    (f,) = [f for f in report["findings"] if f["rule"] == "ticket.measured_vs_expected"]
    assert report["verdict"]["category"] == "expected_physics" and "EAGLE" in f["title"]
    step = next(e for e in f["evidence"] if e["unit"] == "tok/step")
    assert "arxiv.org/abs/2401.15077" in step["source"] and step["measured"] == "1.5-4.8"
    assert not any(x["rule"] == "ticket.batched_rate" for x in report["findings"])


def test_the_same_rate_without_speculation_is_judged_as_before(tmp_path):
    """The launch line without its speculative flags and the words negated: 297 tok/s is more than one stream's
    plain roofline, so it is read as a batch's throughput, as it was before speculation was read."""
    text = (ISSUES / "sglang-2150-eagle-297-tokps-one-h100.md").read_text()
    text = text.replace("--speculative-algo EAGLE --speculative-draft lmzheng/sglang-EAGLE-llama2-chat-7B "
                        "--speculative-num-steps 5 --speculative-eagle-topk 8 --speculative-num-draft-tokens 64 ", "")
    text = text.replace("Support eagle speculative decoding.", "Without speculative decoding.")
    report = ticket(tmp_path, text.replace("## Eagle decoding", "## Decoding"))
    assert not any("EAGLE" in f["title"] for f in report["findings"])
    assert report["verdict"]["category"] != "expected_physics"


@pytest.mark.parametrize("rate, category", [(110, "expected_physics"), (400, "other")])
def test_a_paraphrase_in_prose_on_another_board(tmp_path, rate, category):
    """Words alone ("with MTP") on a 4090: 110 tok/s for an 8B bf16 model beats plain decode but sits inside MTP's
    band; 400 tok/s beats the roofline even at MTP's most tokens a step."""
    report = ticket(tmp_path, "# Is this speed normal?\n\nvLLM serving meta-llama/Meta-Llama-3-8B-Instruct (bf16) "
                    f"on one RTX 4090 with MTP. I get {rate} tok/s for one request.\n")
    (f,) = [f for f in report["findings"] if f["rule"] == "ticket.measured_vs_expected"]
    assert f["category"] == category and "MTP" in f["title"]
