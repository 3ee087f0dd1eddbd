"""Issue 10: an eager PyTorch engine's host time per decode layer (tgi-1.0, deepspeed): the kernel launches, the c10d
all-reduce calls (`allreduce_host_us`) and the layer's views (`host_us_per_layer`) bound the step at batch 1 once the
weights per GPU are small, and that time does not shrink with TP."""

import dataclasses

from rules import catalog
from rules.roofline import Layout, predict


def _step(engine, tp, gpu="a10g", model="llama-2-7b"):
    p = predict(catalog.model(model), catalog.gpu(gpu), Layout(tp, 1), batch=1, prompt=233, output=50, dtype="fp16",
                engine=engine, gpus_per_node=8)
    return p.itl_ms_expected, p.expected_terms


def test_tgi_before_graphs_is_host_bound_from_tp4_and_flat_in_tp():
    eng = catalog.engine("tgi-1.0")
    itl1, terms1 = _step(eng, 1)
    itl4, terms4 = _step(eng, 4)
    itl8, terms8 = _step(eng, 8)
    assert terms1["launch_ms"] == 0  # one A10G streams 13 GB: the GPU, not the host, sets the step
    assert terms8["weights_ms"] < terms4["weights_ms"] / 1.9  # the weights per GPU halve from TP4 to TP8 ...
    assert terms8["launch_ms"] > 0 and abs(itl8 / itl4 - 1) < 0.05  # ... and the step does not: the host sets it
    assert itl8 > itl1 / 3  # far from the 8x a weight-bound step would give


def test_the_c10d_call_cost_counts_only_where_an_all_reduce_is_called_from_the_host():
    eng = catalog.engine("tgi-1.0")
    cheap = dataclasses.replace(eng, allreduce_host_us=0.0)  # each all-reduce one launch, as before issue 10
    assert _step(eng, 8)[0] > _step(cheap, 8)[0] + 1.0  # 64 calls x (89 - 12) us, above the GPU's time
    assert _step(eng, 1)[0] == _step(cheap, 1)[0]  # TP1 reduces nothing
    graphs = catalog.engine("tgi")  # TGI 2.x replays its decode step, all-reduces included, from a CUDA graph
    assert _step(graphs, 8)[0] == _step(dataclasses.replace(graphs, allreduce_host_us=89.0, host_us_per_layer=56.0),
                                        8)[0]


def test_a_large_model_stays_weight_bound_where_the_host_keeps_up():
    eng = catalog.engine("tgi-1.0")
    _, terms = _step(eng, 8, model="llama-2-70b")  # 17.5 GB a GPU: ~34 ms of weights against ~30 ms of host
    assert terms["launch_ms"] == 0
    _, terms = _step(catalog.engine("deepspeed"), 8, gpu="a100-80gb-sxm", model="bloom-176b")
    assert terms["launch_ms"] == 0  # DeepSpeed's eager all-reduces hide behind 44 GB a GPU
