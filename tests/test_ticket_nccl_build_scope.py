"""An NCCL build older than CUDA 11.3 matters where decode steps are captured as CUDA graphs (vLLM, SGLang,
TensorRT-LLM): in a plain nccl-tests run the version line alone is no fault. NCCL's own 'cannot be captured in a
graph' warning counts everywhere. Issues written for this test."""

from test_ticket_figures import _issue
from test_ticket_numbers import _rule

RUN = """NCCL version 2.16.5+cuda11.0
```
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   536870912     134217728     float     sum      -1   4512.3  118.98  208.21      0   4510.1  119.04  208.32      0
  1073741824     268435456     float     sum      -1   8998.7  119.32  208.81      0   8995.2  119.37  208.89      0
```
"""


def test_an_old_nccl_build_in_an_nccl_tests_run_is_no_fault():
    _, findings, _ = _issue("# busbw on 8x A100\n\nIs 208 GB/s busbw right for all_reduce_perf on one DGX A100?\n\n"
                            + RUN)
    assert not _rule(findings, "ticket.nccl_build")


def test_an_old_nccl_build_under_an_engine_that_captures_graphs_is_named():
    _, findings, _ = _issue("# vLLM fails with TP=2\n\nvLLM 0.5.4 with tensor parallel 2 fails at start-up on 2x A100; "
                            "TP=1 works.\n\n" + RUN)
    assert _rule(findings, "ticket.nccl_build")
