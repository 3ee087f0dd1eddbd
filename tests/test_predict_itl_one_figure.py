"""predict prints the ITL its JSON gives: the table's ITL and ITL roofline columns and the one-layout headline are the
rows' itl_ms_expected and itl_ms (a user-tester read 7.68 printed against 7.66 in the JSON)."""

import json

import pytest
from click.testing import CliRunner

from diagnose.cli import cli


@pytest.mark.parametrize("args", [("--model", "llama3.1:8b", "--gpu", "rtx-4090", "--tp", "1"),
                                  ("--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "4", "--batch", "16"),
                                  ("--model", "llama-2-7b", "--gpu", "a100-80gb-sxm", "--tp", "1", "--prompt", "2048")])
def test_table_headline_and_json_give_one_itl(args):
    out = json.loads(CliRunner().invoke(cli, ["predict", *args, "--json", "--fail-on", "never"]).stdout)
    layout = out["predictions"]["layouts"][0]
    table = next(iter(out["tables"].values()))
    row = dict(zip(table["columns"], table["rows"][0]))
    assert row["ITL ms"] == round(layout["itl_ms_expected"], 2)
    assert row["ITL roofline"] == round(layout["itl_ms"], 2)
    said = f"at {layout['itl_tok_s_expected']:.0f} tok/s per sequence ({layout['itl_ms_expected']:.2f} ms ITL at " \
        f"{layout['itl_context']:,} tokens"
    assert said in out["verdict"]["summary"] + json.dumps(out["findings"])
    assert row["tok/s/seq"] == round(1000 / layout["itl_ms_expected"], 1)  # one context for both figures
