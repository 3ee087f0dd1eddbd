"""An NCCL A/B pasted as one block of output per release (rules.claims.release_blocks): the block belongs to the
release named on the nearest line before it, not to a title or an opening line that names a release (or a
range of releases) further up. Real threads, cut where '...' stands."""

from pathlib import Path

from diagnose.bundle import read_bundle
from rules import claims
from rules.engine import evaluate, ticket_verdict

CORPUS = Path(__file__).parent / "data" / "tickets"


def folder(prefix: str) -> Path:
    (found,) = [p for p in CORPUS.iterdir() if p.name.startswith(prefix + "-")]
    return found


def issue(tmp_path, text: str):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "issue.md").write_text(text)
    return read_bundle([tmp_path / "t"])


def verdict(facts):
    from diagnose.commands.ticket import ticket_predictions
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))


def test_a_title_naming_a_release_range_does_not_take_the_first_block():
    # NVIDIA/nccl#1272: the title says "for NCCL >= 2.20", then "... is the following for NCCL 2.19.4:" and a
    # block, "While for NCCL 2.20.5, it is:" and a block: sendrecv_perf at 24.24 against 18.32 GB/s.
    facts = read_bundle([folder("u18a05")])
    (c,) = claims.release_blocks(facts)
    assert c.data["versions"] == ["2.19.4", "2.20.5"]
    assert "24.2382" in c.quote and "18.3153" in c.quote
    assert verdict(facts).category == "nccl_regression"


def test_release_lines_each_before_their_own_block_still_pair():
    # NVIDIA/nccl#1566 (another thread): "run with nccl version 2.21.5 , output duration:" and a block of 40.98 s
    # per rank, then the 2.18.3 run and its block.
    (c,) = claims.release_blocks(read_bundle([folder("u5b06")]))
    assert c.data["versions"] == ["2.21.5", "2.18.3"]


NCCL_1403 = "\n".join((  # the lines as posted (long ones split here only for the line length)
    '# Allreduce bus bandwidth is very low and unstable when ECE (enhanced connection establishment) is enabled.',
    '',
    '...',
    '',
    '**Additional information**：',
    'Using the nvcr.io/nvidia/pytorch:24.06-py3 container and NCCL-2.22.3 for testing, the results are as follows:',
    '```shell',
    '# mpirun -np 16 -map-by node --allow-run-as-root --hostfile ../myhostfile -x NCCL_IB_GID_INDEX=3 '
    '-x LD_LIBRARY_PATH=/workspace/nccl22.3/ ./build/all_reduce_perf -b 2G -e 20G -f 2',
    '# nThread 1 nGpus 1 minBytes 2147483648 maxBytes 21474836480 step: 2(factor) warmup iters: 5 iters: 20 '
    'agg iters: 1 validation: 1 graph: 0',
    '#',
    '# Using devices',
    '#  Rank  0 Group  0 Pid  18892 on bms-ytl-g16-v4-app-10-249-32-2 device  0 [0x1b] NVIDIA H100 80GB HBM3',
    '#  Rank  1 Group  0 Pid  20843 on bms-ytl-g16-v4-app-10-249-32-3 device  0 [0x1b] NVIDIA H100 80GB HBM3',
    '...',
    '```',
    '',
))


def test_one_release_and_its_one_block_is_no_ab(tmp_path):
    # NVIDIA/nccl#1403 (a later comment): one release named right before the only block
    facts = issue(tmp_path, NCCL_1403)
    assert claims.release_blocks(facts) == []
    assert not claims.find(facts, "nccl_versions_compared")


def test_the_title_and_one_release_before_one_block_are_no_ab(tmp_path):
    # NVIDIA/nccl#1272 cut before "While for NCCL 2.20.5": the title's range and the 2.19.4 line both come
    # before the one block; the nearer line names it, and the title's release gets no block of its own
    text = (folder("u18a05") / "issue.md").read_text()
    facts = issue(tmp_path, text[:text.index("While for NCCL 2.20.5")])
    assert claims.release_blocks(facts) == []
    assert not claims.find(facts, "nccl_versions_compared")
