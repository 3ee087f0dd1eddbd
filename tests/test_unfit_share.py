"""What a 'does not fit' in ticket.measured_vs_expected names (rules.ticket_rules.unfit_share): the roofline's own
shortfall, weights + the engine's reserve + KV against usable memory, so weights that fit alone are never called the
overflow (issue 11 review: 'the checkpoint's weights (X GB a GPU) do not fit' showed X below the GPU's memory).
Models and GPUs are the bundled catalog's rows (each cites its source); the figures are the roofline's."""

from __future__ import annotations

from rules import catalog, roofline
from rules.predict_rules import shortfall_words
from rules.roofline import Layout
from rules.ticket_rules import unfit_share


def _predict(gpu: str, tp: int, pp: int, engine: str):
    return roofline.predict(catalog.model("llama-3-70b"), catalog.gpu(gpu), Layout(tp=tp, pp=pp), batch=1,
                            engine=catalog.engine(engine))


def test_six_rtx_3090s_layer_split_overflow_on_the_weights_and_say_by_how_much():
    p = _predict("rtx-3090", 1, 6, "llamacpp")  # Llama-3-70B 16-bit over six 24 GB boards, llama.cpp layer split
    what, usable = unfit_share(p)
    assert not p.fits and what == "weights"
    assert p.weights_gb_per_gpu > usable  # the fullest stage's layers alone exceed what the engine may fill
    assert usable < catalog.gpu("rtx-3090").memory_bytes / 1e9
    words = shortfall_words(p, usable)
    assert f"short by {p.memory_shortfall_gb:.1f} GB" in words and f"{usable:.1f} GB usable" in words


def test_weights_that_fit_alone_are_named_with_the_engines_reserve():
    p = _predict("a100-40gb-sxm", 1, 4, "vllm-0.14")  # 36 GB of weights a GPU fit 40 GB; vLLM's reserve does not
    what, usable = unfit_share(p)
    assert not p.fits and p.weights_gb_per_gpu < usable < p.weights_gb_per_gpu + p.reserved_gb
    assert what == "weights plus the engine's reserve"
    assert round(usable + p.memory_shortfall_gb, 1) >= round(p.weights_gb_per_gpu + p.reserved_gb, 1)


def test_a_layout_that_fits_the_weights_and_reserve_names_the_kv_cache():
    p = roofline.predict(catalog.model("llama-3-70b"), catalog.gpu("a100-40gb-sxm"), Layout(tp=4), batch=64,
                         context=32768, engine=catalog.engine("vllm-0.14"))  # 64 x 32k tokens of KV on four boards
    what, usable = unfit_share(p)
    assert not p.fits and p.weights_gb_per_gpu + p.reserved_gb <= usable
    assert what == "weights, the engine's reserve and the KV cache"
