"""Pass c51e: an engine's traceback pasted cut, its frames without the header above them or the line naming the
exception (tests/data/c51e/SOURCES.md).

Four threads in which an engine raised only at tensor parallelism above 1, each settled as a defect of the engine's
support for the model (other): vllm-project/vllm#18706 (OLMoE q_norm/k_norm, PR #18828), #6946 (MiniCPM-V, "related
to the broadcasting logic"), #1474 (GPT-J load_weights, PR #1631), gpustack/gpustack#2490 (Qwen3-Reranker in vLLM's
models/adapters.py, PR vllm#20682). Each paste shows the failure ("error when tensor_parallel_size>1", "fails on
multi-GPU") and the engine's frames, and was answered insufficient_data: no exception was read, as the cut traceback
keeps neither "Traceback (most recent call last)" nor "SomeError:". A frame as Python's traceback module prints it is
now the software raising where the frames show the raise (logged at ERROR, or a `raise` line), so ticket.software_error
answers them (other); bare frames are not, as stacks that raise nothing (print_stack, gdb's py-bt, stack_info) print
the same.
"""

import pytest
from conftest import issue_bundle, judged_issue, judged_kept_paste

from rules import claims


@pytest.mark.parametrize("rel", [
    "b50b/vllm18706.md",      # OLMoE at TP > 1: frames through vllm/model_executor/models/olmoe.py
    "c51e/vllm6946.md",       # MiniCPM-Llama3-V-2_5: "tensor_parallel_size=1 works fine, but error when ... >1"
    "c51e/vllm1474.md",       # GPT-J at TP 8: frames pasted without a fence, Ray's RayTaskError(AssertionError)
    "c51e/gpustack2490.md",   # Qwen3-Reranker at TP 2: frames through vllm/model_executor/models/adapters.py
])
def test_an_engine_traceback_cut_to_its_frames_is_a_software_error(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "other"
    assert found["ticket.software_error"].category == "other"


def test_a_whole_exception_line_is_read_as_before(tmp_path):
    # lmdeploy#2452: "RuntimeError:Expected all tensors to be on the same device" at --tp 2 (fixed by PR #2454)
    verdict, found = judged_kept_paste(tmp_path, "c51e/lmdeploy2452.md")
    assert (verdict.category, "ticket.software_error" in found) == ("other", True)


def _exception(text: str):
    return [c for c in claims.find(issue_bundle(text), "exception") if not c.guess]


_FRAMES = ('  File "/usr/lib/python3.10/site-packages/vllm/worker/worker_base.py", line 65, in '
           'start_worker_execution_loop\n    output = self.execute_model(execute_model_req=None)\n'
           '  File "/usr/lib/python3.10/site-packages/vllm/model_executor/models/olmoe.py", line 175, in forward\n'
           '    q, k = self.q_norm(q.contiguous()), self.k_norm(k.contiguous())\n')
# the same frames as vLLM's worker logs the exception it raised (vllm#18706's shape)
_LOGGED = "".join("(VllmWorker rank=0 pid=1902987) ERROR 05-26 09:27:34 [multiproc_executor.py:522] " + line + "\n"
                  for line in _FRAMES.splitlines())
# frames whose innermost line is a raise statement (vllm#1474's shape)
_RAISING = ('  File "/opt/conda/lib/python3.8/site-packages/ray/_private/worker.py", line 2547, in get\n'
            '    raise value.as_instanceof_cause()\n')


@pytest.mark.parametrize("frames", [_LOGGED, _RAISING])
def test_frames_that_show_the_raise_are_an_exception(frames):
    assert _exception("# TP 2 fails\n\n```\n" + frames + "```\n")


def test_bare_frames_are_no_exception():
    # traceback.print_stack() and a cut copy print the same bare frames: nothing in them says anything raised
    assert not _exception("# TP 2 fails\n\n```\n" + _FRAMES + "```\n")


@pytest.mark.parametrize("text", [
    # the user's Ctrl-C at the end of the frames: nothing raised (as the header's own reading)
    "# TP 2 is stuck, I pressed Ctrl-C\n\n```\n" + _RAISING + "KeyboardInterrupt\n```\n",
    # faulthandler's dump of a live process prints no comma before "in" (Python's faulthandler.dump_traceback)
    "# TP 2 is stuck\n\n```\nThread 0x00007f1c (most recent call first):\n"
    '  File "/usr/lib/python3.10/threading.py", line 320 in wait\n'
    '  File "/usr/lib/python3.10/site-packages/vllm/engine/llm_engine.py", line 912 in step\n```\n',
    # py-spy's dump of the same
    "# TP 2 is stuck\n\n```\nThread 1234 (idle): \"MainThread\"\n    wait (threading.py:320)\n"
    "    step (vllm/engine/llm_engine.py:912)\n```\n",
    # Python's report of an exception it could not raise (a destructor at shutdown): the program ran on
    "# TP 2 output\n\n```\nException ignored in: <function LLMEngine.__del__ at 0x7f>\n"
    "Traceback (most recent call last):\n" + _RAISING + "```\n",
])
def test_frames_of_no_raise_are_no_exception(text):
    assert not _exception(text)


def _software_error(text: str) -> bool:
    return "ticket.software_error" in judged_issue(text)[1]


_PASTE = "```\n" + _LOGGED + "```\n"


@pytest.mark.parametrize("text", [
    # a past state: the load stopped on an older release, the question now is speed
    "# OLMoE TP 2 slower than expected\n\nOn 0.8.5 loading at TP 2 stopped in the frames below; after upgrading to "
    "0.9.0 it loads fine, but decoding at TP 2 is slower than at TP 1. Is this expected?\n\n" + _PASTE,
    # frames another user posted, the reporter's own run loading and only slow
    "# Throughput at TP 4 on 4x A100\n\nSomeone in #18706 posted the frames below. My own run loads fine; it is just "
    "slow: 30 tokens/s at TP 4. Why?\n\n" + _PASTE,
])
def test_frames_beside_a_run_that_does_not_fail_are_no_software_error(text):
    assert not _software_error(text)


@pytest.mark.parametrize("last", [
    # the engine's refusal of a TP size that does not divide the heads: a usage limit it checks, not a defect
    "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3).\n",
    "",  # the frames alone at TP 3, which the 8 or 4 KV heads of current models refuse (ticket.tp_size_uneven)
])
def test_frames_at_a_tp_size_the_heads_refuse_keep_that_answer(last):
    verdict, _ = judged_issue("# Qwen at TP 3 fails\n\n```\n" + _FRAMES + last + "```\n")
    assert verdict.category == "tp_not_dividing_heads"


def test_wrong_output_under_tp_without_a_traceback_stays_open(tmp_path):
    # vllm#3775 (OLMo, MergedColumnParallelLinear forgotten): wrong output, no traceback; wrong output only under TP
    # is also broken P2P or a driver regression, so nothing names the engine
    verdict, found = judged_kept_paste(tmp_path, "b50b/vllm3775.md")
    assert verdict.category == "insufficient_data" and "ticket.software_error" not in found


# The review's probes (s51 r51a), each a stack of frames beside which nothing was raised, or not the reporter's
_PROBES = {
    'e4_pybt_crash': (
        '# vLLM crashes with Segmentation fault at tensor_parallel_size=2\n'
        '\n'
        'On 2x A100 80GB SXM, `vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2'
        '` dies with "Segmentation fault (core dumped)" during the first request. At TP 1 it works.'
        ' I opened the core in gdb and ran py-bt:\n'
        '\n'
        '```\n'
        '(gdb) py-bt\n'
        'Traceback (most recent call first):\n'
        '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", li'
        'ne 2050, in all_reduce\n'
        '    work = group.allreduce([tensor], opts)\n'
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/distributed/parallel_state.py", line '
        '350, in all_reduce\n'
        '    torch.distributed.all_reduce(input_, group=self.device_group)\n'
        '```\n'
    ),
    'e3_print_stack_slow': (
        '# Llama-70B at TP 4 is slow on 4x L40S\n'
        '\n'
        'With vLLM at tensor_parallel_size=4 on 4x L40S (PCIe Gen4, no NVLink) I get 18 tokens/s fo'
        'r one stream. Is this expected for PCIe?\n'
        '\n'
        'To see where it waits I added traceback.print_stack() in the all-reduce; it prints:\n'
        '\n'
        '```\n'
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/model_runner.py", line 1450, i'
        'n execute_model\n'
        '    hidden_or_intermediate_states = model_executable(\n'
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/distributed/communication_op.py", lin'
        'e 11, in tensor_model_parallel_all_reduce\n'
        '    return get_tp_group().all_reduce(input_)\n'
        '```\n'
    ),
    'e11_colleague_crash': (
        '# Decoding at TP 4 on 4x A10G: 25 tokens/s\n'
        '\n'
        'On my 4x A10G (PCIe, no NVLink) vLLM at tensor_parallel_size=4 runs, but decoding is 25 to'
        'kens/s, while at TP 2 it is 30 tokens/s. Is this expected on PCIe?\n'
        '\n'
        "A colleague's machine crashed at load with the frames below, but mine never did:\n"
        '\n'
        '```\n'
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/model_loader/loader.py'
        '", line 398, in load_model\n'
        '    model.load_weights(self._get_all_weights(model_config, model))\n'
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/models/llama.py", line'
        ' 512, in load_weights\n'
        '    weight_loader(param, loaded_weight)\n'
        '```\n'
    ),
    'e9_question': (
        '# Is this stack trace normal at TP 2?\n'
        '\n'
        'When starting vLLM at TP 2 on 2x A100 SXM, the log prints these lines once, but serving wo'
        'rks and the speed is fine. Is this normal or an error?\n'
        '\n'
        '```\n'
        '  File "/usr/lib/python3.10/site-packages/vllm/worker/worker_base.py", line 65, in start_w'
        'orker_execution_loop\n'
        '    output = self.execute_model(execute_model_req=None)\n'
        '  File "/usr/lib/python3.10/site-packages/vllm/model_executor/models/olmoe.py", line 175, '
        'in forward\n'
        '    q, k = self.q_norm(q.contiguous()), self.k_norm(k.contiguous())\n'
        '```\n'
    ),
    'e10_stackinfo': (
        '# Slow first token at TP 2 on 2x L4\n'
        '\n'
        'vLLM 0.6.3 at tensor_parallel_size=2 on 2x L4 (PCIe). Time to first token is 900 ms for a '
        '2k prompt; at TP 1 it is 700 ms. Is PCIe the limit here?\n'
        '\n'
        'Our wrapper logs a warning with the stack when a request waits over 500 ms:\n'
        '\n'
        '```\n'
        'WARNING:serving:request 42 waited 912 ms\n'
        'Stack (most recent call last):\n'
        '  File "/app/server.py", line 88, in handle\n'
        '    out = await engine.generate(prompt, params, rid)\n'
        '  File "/usr/local/lib/python3.10/dist-packages/vllm/engine/async_llm_engine.py", line 105'
        '0, in generate\n'
        '    async for output in await self.add_request(\n'
        '```\n'
    ),
}


@pytest.mark.parametrize("name, category", [
    # a segfault in a collective, its Python frames read from the core by gdb's py-bt ("most recent call first")
    ("e4_pybt_crash", "insufficient_data"),
    # traceback.print_stack() in the all-reduce of a run that is only slow
    ("e3_print_stack_slow", "expected_physics"),
    # a colleague's machine crashed; the reporter's run works and is slow
    ("e11_colleague_crash", "latency_bound_small_batch"),
    # frames asked about beside a run that serves fine
    ("e9_question", "insufficient_data"),
    # logging's stack_info ("Stack (most recent call last):") in a warning of a slow request
    ("e10_stackinfo", "insufficient_data"),
])
def test_frames_that_raise_nothing_are_no_software_error(name, category):
    text = _PROBES[name]
    assert not _exception(text)
    verdict, found = judged_issue(text)
    assert "ticket.software_error" not in found and verdict.category == category
