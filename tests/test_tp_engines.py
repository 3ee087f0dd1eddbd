"""Which engines split each layer over the GPUs they are given comes from each profile's `parallel` field
(engines.toml, first entry), not a hand list: the hand list named tgi but not its release profile tgi-1.0 (nor
lmdeploy-0.1a1, gpt-fast, fastertransformer), so a figure "with 4 GPUs" under TGI 1.0 was judged as one GPU's."""

import pytest

from diagnose.evidence import Facts, Measurement, Workload
from rules import catalog
from rules.common import figure_tp, tp_engine


def test_every_release_profile_splits_as_its_engine_does():
    engines = catalog.engines()
    for base in engines.values():
        for entry in base.releases:
            assert tp_engine(entry.split("=")[1]) == tp_engine(base.key), entry


@pytest.mark.parametrize("key, splits", [("tgi-1.0", True), ("tgi", True), ("lmdeploy-0.1a1", True),
                                         ("vllm", True), ("llamacpp", False), ("llamacpp-eager", False),
                                         ("hf-eager", False), (None, False), ("no-such-engine", False)])
def test_tp_engine(key, splits):
    assert tp_engine(key) is splits


@pytest.mark.parametrize("framework, tp", [("TGI 1.0.3", 4), ("text-generation-inference 2.1", 4),
                                           ("accelerate", None), ("llama.cpp", None)])
def test_a_figures_gpus_are_its_tp_size_under_a_tensor_parallel_engine(framework, tp):
    facts = Facts()
    facts.add(Workload("issue.md:1", framework=framework))
    m = Measurement("issue.md:3", "decode_tok_s", 40.0, gpus=4)
    assert (figure_tp(facts, m) or (None,))[0] == tp
