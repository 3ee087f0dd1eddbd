"""r11a: a stated TGI release before 2.0 (no CUDA graphs by default: PR 1703 made them so, first released in 2.0)
takes the tgi-1.0 profile in every path: `predict --engine`, a ticket's framework string and a ticket's prose."""

import pytest
from conftest import measured_vs_expected

from rules import catalog


@pytest.mark.parametrize("said, key", [
    ("TGI 1.0.3", "tgi-1.0"), ("tgi==1.2.0", "tgi-1.0"), ("text-generation-inference v1.4.5", "tgi-1.0"),
    ("TGI 2.0.4", "tgi"), ("tgi 3.0.1", "tgi"), ("TGI", "tgi"),  # from 2.0 on, and unstated: the graphs profile
])
def test_predict_and_ticket_read_the_same_release_as_one_profile(said, key):
    assert catalog.engine(said).key == catalog.find_engine(said).key == key


@pytest.mark.parametrize("said, old", [
    ("text-generation-inference 1.1.0", True), ("TGI v1.3.4", True), ("TGI 2.4.1", False),
])
def test_a_ticket_stating_a_tgi_release_is_judged_on_its_profile(tmp_path, said, old):
    f = measured_vs_expected(tmp_path, "issue.md", f"# slow?\n\nLlama-2-7B fp16 on one A10G with {said}, one request "
                             "at a time: 25 tok/s. Is this normal?\n")
    assert any("tgi-1.0 profile" in e.detail for e in f.evidence) is old
