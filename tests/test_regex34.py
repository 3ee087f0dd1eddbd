"""regex34: the regexes that were super-linear on a run of spaces, fixed without changing what they match.

Each one had two unbounded whitespace repeats in a row with only optional items between (`\\s*(?:-)?\\s*`,
`\\s+(?:is)?\\s*`): on n spaces one match tries every split of the run, and a search from every position multiplies
that by n (issue_md.OUTCOME_CLAUSE took 10 s on 500 spaces, benchmarks/regex_worst_case.py). The tests assert
structure (no such chain: exact, and immune to a loaded machine), that the finder of chains does flag the old forms,
the matches on the real phrasings the regexes were written from, and the answer on a long run of spaces in a
subprocess with a generous time limit (the old forms take minutes there, the new ones milliseconds).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.regex_worst_case import runaway_repeats, whitespace_chains
from diagnose.artifacts import figures, issue_md, serving_bench, smi_query
from rules import claims, common, ticket_questions

REPO = Path(__file__).resolve().parents[1]

FIXED = {
    "issue_md.OUTCOME_LINE": issue_md.OUTCOME_LINE,
    "issue_md.OUTCOME_CLAUSE": issue_md.OUTCOME_CLAUSE,
    "issue_md.NETWORK_AFTER": issue_md.NETWORK_AFTER,
    "issue_md._LABEL_UNIT": issue_md._LABEL_UNIT,
    "figures.CHANGE_END": figures.CHANGE_END,
    "claims._OF_ITSELF": claims._OF_ITSELF,
    "claims._GONE_AFTER": claims._GONE_AFTER,
    "claims._RELEASE_NEXT": claims._RELEASE_NEXT,
    "claims._PP_DEGREE": claims._PP_DEGREE,
    "claims._SWITCH": claims._SWITCH,
    "claims._TABLE_RULE": claims._TABLE_RULE,
    "common._NVLINK_NONE_AFTER": common._NVLINK_NONE_AFTER,
    "issue_md.SMI_GPU_ROW": issue_md.SMI_GPU_ROW,
    "issue_md.NODES_OF_GPU": issue_md.NODES_OF_GPU,
    "issue_md.GPU_COUNT_AFTER": issue_md.GPU_COUNT_AFTER,
    "serving_bench.LMDEPLOY_TABLE_HEAD": serving_bench.LMDEPLOY_TABLE_HEAD,
    "smi_query._KEY_VALUE": smi_query._KEY_VALUE,
}


def _flags(pattern) -> int:
    return pattern.flags if hasattr(pattern, "flags") else pattern._flags


# (smi_query._KEY_VALUE keeps one chain the finder flags, `\s+(.*)` at its end: `.*` cannot fail, so nothing is retried)
@pytest.mark.parametrize("name", [n for n in FIXED if n != "smi_query._KEY_VALUE"])
def test_no_whitespace_chain(name):
    assert whitespace_chains(FIXED[name].pattern, _flags(FIXED[name])) == []


# The forms before regex34 (the part that changed), which the finder must flag.
OLD_FORMS = [
    r"^\s*(?:[-*+]|\d+[.)])?\s*(?:(?:with|on)\s+)?[^\n|]{1,60}?\sOK$",
    r"\s*-?\s*(?:network|fabric|interconnect)\b",
    r"^\s*\|?\s*(?P<label>[^|]*?)\s*\((?P<paren>tok/s)\)",
    r"(?:\.?(?:dev|post|rc)\d+)?`?\s*(?:\(|\[|,?\s*(?:where|when)\b)",
    r"\s+(?:\w+\s+){0,2}?(?:is|are|was|were)?\s*(?:gone|fixed)\b",
    r"\s*(?:==|@|version\s*)?\s*v?\d+\.\d",
    r"['\"]?\s*(?:\(\s*)?(?:(?:PP|pp)\s*)?(?:=|:)?\s*(\d{1,3})\b",
    r"^\s*\|?\s*:?-{3,}",
    r"(?:\s*(?:bridge|links?)?\s*[:=]\s*)(?:none|no)\b",
    r"\s*(?:(?:to|->)\s+|(?:降低|提升)?\s*(?:至|到)\s*)\d",
    r"^\s*\|?\s*\d{1,2}\s+\S",
    r"^\s*(?:\(?\s*\d{2,3}\s*G(?:B|iB)?\s*\)?\s+)?(?:nodes|servers)\b",
    r"^\s*(?:GPUs?|cards?)?\s*(?:x|×|\*)\s*(\d{1,4})\b",
    r"^(\s*)([^:]*?\S)\s*:(?:\s+(.*)|$)",
]


@pytest.mark.parametrize("source", OLD_FORMS)
def test_chain_finder_flags_the_old_forms(source):
    assert whitespace_chains(source)


def test_chain_finder_passes_bounded_and_separated_repeats():
    assert whitespace_chains(r"a\s*b\s*c") == []
    assert whitespace_chains(r"\s{0,8}(?:is\s+)?\s{0,8}x") == []
    assert whitespace_chains(r"[^\n]{0,200}\s*x") == []


# The phrasings the regexes were written from (their comments cite the threads), matched as their callers match them.
@pytest.mark.parametrize("pattern, text, pos, matched", [
    (issue_md.OUTCOME_CLAUSE, "RTX3090 with CUDA 11.4 OK", 0, True),  # pytorch/pytorch#87363
    (issue_md.OUTCOME_CLAUSE, "T4 always works fine", 0, True),  # modal-labs/modal-examples#448
    (issue_md.OUTCOME_CLAUSE, "two RTX 4090 in one box", 0, False),
    (issue_md.OUTCOME_LINE, "- With RTX3090, CUDA 11.4: OK", 0, True),
    (issue_md.OUTCOME_LINE, "2080 Ti -> fine", 0, True),
    (issue_md.OUTCOME_LINE, "RTX 4090: 12 tok/s", 0, False),
    (issue_md.NETWORK_AFTER, "400 Gb/s network", 8, True),
    (issue_md.NETWORK_AFTER, "400 Gb/s - fabric", 8, True),
    (issue_md.NETWORK_AFTER, "400 Gb/s busbw", 8, False),
    (figures.CHANGE_END, "from 50 to 25 tok/s", 7, True),
    (figures.CHANGE_END, "从 50 降低 至 30", 4, True),
    (claims._RELEASE_NEXT, " version 2.18", 0, True),
    (claims._RELEASE_NEXT, " == 0.4.2", 0, True),
    (claims._RELEASE_NEXT, " GPUs", 0, False),
    (claims._GONE_AFTER, "the hang is gone", 8, True),
    (claims._GONE_AFTER, "the hang stays", 8, False),
    (claims._TABLE_RULE, "| --- | --- |", 0, True),
    (common._NVLINK_NONE_AFTER, "NVLink bridge: none", 6, True),
    (common._NVLINK_NONE_AFTER, "NVLink is absent", 6, True),
    (common._NVLINK_NONE_AFTER, "NVLink is fast", 6, False),
    (issue_md.SMI_GPU_ROW, "|   0  NVIDIA RTX 6000 Ada Gene...    On  |   00000000:01:00.0 Off |", 0, True),
    (issue_md.NODES_OF_GPU, " (80GB) machines", 0, True),  # "6 A100 (80G) machines"
    (issue_md.NODES_OF_GPU, " cards", 0, False),
    (issue_md.GPU_COUNT_AFTER, " x 8", 0, True),
    (issue_md.GPU_COUNT_AFTER, "を8枚", 0, True),
    (smi_query._KEY_VALUE, "    Product Name                          : NVIDIA H100 80GB HBM3", 0, True),
    (smi_query._KEY_VALUE, "    ==============NVSMI LOG==============", 0, False),
])
def test_matches_on_real_phrasings(pattern, text, pos, matched):
    assert bool(pattern.match(text, pos)) is matched


def test_label_unit_reads_a_row():
    assert issue_md.label_unit("| Output throughput (tok/s) | 42.5 |") != "| Output throughput (tok/s) | 42.5 |"
    assert issue_md.label_unit("| model | 42.5 |") == "| model | 42.5 |"


def test_pp_degree_after_its_words():
    m = claims.re.search(r"pipeline[- ]parallel", "pipeline-parallel size = 2", claims.re.I)
    assert claims._PP_DEGREE.match("pipeline-parallel size = 2", m.end()).group(1) == "2"


# 20 kB of spaces before the words each regex is after: the old forms take minutes on it (OUTCOME_CLAUSE alone took
# 10 s on 500 spaces), the fixed ones milliseconds. A subprocess with a generous limit, so a loaded CI machine does not
# fail it; what it asserts is the answer.
_LONG_RUN = """
import sys
sys.path.insert(0, sys.argv[1])
from diagnose.artifacts import figures, issue_md, serving_bench, smi_query
from rules import claims, common
gap = " " * 20_000
print(bool(issue_md.OUTCOME_CLAUSE.match(gap + "T4 works")), bool(issue_md.OUTCOME_LINE.match(gap + "A6000: works")),
      bool(issue_md.NETWORK_AFTER.match(gap + "- network")),
      bool(issue_md._LABEL_UNIT.match("| x" + gap + "(tok/s) | 4 |")),
      bool(figures.CHANGE_END.match(gap + "to 25")), bool(claims._OF_ITSELF.match(gap + ", where")),
      bool(claims._GONE_AFTER.search("hang" + gap + "is gone")), bool(claims._RELEASE_NEXT.match(gap + "2.18")),
      bool(claims._PP_DEGREE.match(gap + "= 2")), bool(claims._SWITCH.match("x" + gap + "=")),
      bool(claims._TABLE_RULE.match(gap + "| ---")), bool(common._NVLINK_NONE_AFTER.match(gap + ": none")),
      bool(issue_md.SMI_GPU_ROW.match(gap + "| 0 x On |")), bool(issue_md.NODES_OF_GPU.match(gap + "nodes")),
      bool(issue_md.GPU_COUNT_AFTER.match(gap + "x 8")), bool(smi_query._KEY_VALUE.match(gap + "Bus Id : 1")),
      bool(serving_bench.LMDEPLOY_TABLE_HEAD.match(gap + "| batch | RPS | throughput (out tok/s)")),
      bool(issue_md.OUTCOME_CLAUSE.match(gap)), bool(claims._GONE_AFTER.search(gap)),
      bool(smi_query._KEY_VALUE.match(gap)))
"""


def test_long_run_of_spaces_answers():
    done = subprocess.run([sys.executable, "-c", _LONG_RUN, str(REPO)], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["True"] * 17 + ["False"] * 3, done.stderr


# regex34b: three regexes searched over whole texts whose leading blanks could start at any blank of a run, so each
# search position ran the rest of the run and failed (quadratic: 0.6 s on 5 kB of spaces for _CLAUSES, 1.3 s on 5 kB of
# tabs for _SERVED_FIRST). (?<!\s) starts them at a run's first blank only; same spans, groups and splits as before on
# all kept pastes, development and shared tickets and fuzzed texts.
SEARCHED = {  # each with words it matches after blanks
    "claims._CLAUSES": (claims._CLAUSES, "but it hangs"),
    "claims._COUNTS_CONTRAST": (claims._COUNTS_CONTRAST, "but 4 GPUs slow"),
    "ticket_questions._SERVED_FIRST": (ticket_questions._SERVED_FIRST, "2个请求返回，剩余请求要等"),
}


@pytest.mark.parametrize("name", SEARCHED)
def test_searched_blanks_start_a_run(name):
    pattern, words = SEARCHED[name]
    assert whitespace_chains(pattern.pattern, pattern.flags) == []
    assert pattern.search("x" + " " * 50 + words).start() == 1  # at the run's first blank
    assert pattern.search("x" + " " * 50 + words, 2) is None  # never inside the run


# The phrasings the regexes' comments quote, read as their callers read them.
def test_clauses_split_real_phrasings():
    assert claims._CLAUSES.split("2.21.5 crashes while 2.20.5 works") == ["2.21.5 crashes", "2.20.5 works"]
    assert claims._CLAUSES.split("with 2.18 it works,   with 2.19 it hangs") == ["with 2.18 it works",
                                                                                 "with 2.19 it hangs"]
    assert claims._CLAUSES.split("it works   and   it hangs") == ["it works", "it hangs"]


def test_clause_at_ends_at_a_mark_whose_blanks_it_ends_inside():
    # `end` inside the blank run before " but ": the clause still ends there, as before regex34b
    assert claims._clause_at("fast  but slow", 0, 5) == "fast "
    assert claims._clause_at("it gave 230 GB/s, but 80 GB/s on nccl", 8, 16) == "it gave 230 GB/s"


def test_counts_contrast_splits_real_phrasing():
    assert claims._COUNTS_CONTRAST.split("with 2 GPUs it is fine, but with 4 GPUs the throughput halves",
                                         maxsplit=1) == ["with 2 GPUs it is fine", " with 4 GPUs the throughput halves"]
    assert len(claims._COUNTS_CONTRAST.split("with 2 GPUs it is fine and with 4 GPUs too", maxsplit=1)) == 1


@pytest.mark.parametrize("text, first", [
    ("其中2个请求可以在1.5秒内返回，剩余请求都要在5秒甚至10秒后才能返回", "2"),
    ("only 2 of the requests return within 1.5 s, the rest wait 5-10 s", "2"),
    ("前  2 个请求很快返回，其他的要等", "2"),
])
def test_served_first_reads_real_phrasings(text, first):
    m = ticket_questions._SERVED_FIRST.search(text)
    assert m and m.start() == 0 and next(g for g in m.groups() if g) == first


# 50 kB of blanks around the words: the old forms took about a minute each on it, the new ones milliseconds.
_LONG_SEARCH = """
import sys
sys.path.insert(0, sys.argv[1])
from rules import claims, ticket_questions
gap, tabs = " " * 50_000, "\t" * 50_000
print(len(claims._CLAUSES.split("works" + gap + "but hangs")), len(claims._CLAUSES.split(gap)),
      len(claims._COUNTS_CONTRAST.split("2 GPUs fine" + gap + "but 4 slow", maxsplit=1)),
      len(claims._COUNTS_CONTRAST.split(gap, maxsplit=1)),
      ticket_questions._SERVED_FIRST.search(tabs + "2个请求返回，剩余请求要等") is not None,
      ticket_questions._SERVED_FIRST.search(tabs) is not None)
"""


def test_long_run_of_blanks_searched():
    done = subprocess.run([sys.executable, "-c", _LONG_SEARCH, str(REPO)], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["2", "1", "2", "1", "True", "False"], done.stderr


# The structural check the tests of other passes assert in place of timings (timed37): it flags a nested unbounded
# repeat and two unbounded repeats a run of one character can both feed, and passes the linear forms.
@pytest.mark.parametrize("source", [r"(?:\s*\w*\s*)*x", r"\d+\d+$", r"(?:a+)+b", r"^\s*-?\s*name:"])
def test_runaway_repeats_flags_the_backtracking_shapes(source):
    assert runaway_repeats(source)


@pytest.mark.parametrize("source", [r"\bfoo\s+bar\b", r"\d+(?:\.\d+)?\s*GB/s", r"[^.\n]{0,40}?\bslow\b"])
def test_runaway_repeats_passes_the_linear_shapes(source):
    assert runaway_repeats(source) == []
