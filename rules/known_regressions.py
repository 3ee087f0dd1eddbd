"""Known NCCL regressions recognised by their symptom, not by the version alone.

A row of rules/catalog/nccl_regressions.toml with `shows` and `at` (a hang in all-to-all, memory growing while CUDA
graphs are captured, ...) is proposed when the NCCL release the ticket runs falls inside the row's range AND the
reporter (or a pasted log) describes that symptom where the row says it shows. A release inside a range with another
symptom is context: the regression may be there, nothing says it is what the reporter sees. A reporter's own A/B
("2.18.6 works, 2.19.3 hangs") across the range's edge makes it firmer; a release inside the range said to work rules
the row out, and so does an engine release that sets, itself, a setting under which the regression cannot show (vLLM
0.4.3-0.10.1 set NCCL_CUMEM_ENABLE=0: rules/catalog/engine_nccl_settings.toml, the row's `ruled_out_by`): the finding
then says so instead of proposing it.
"""

from __future__ import annotations

import functools

from diagnose import lazy_re as re
from diagnose.evidence import Facts, NcclEvent, NcclSetting, NcclVersion, Note, Workload
from rules import catalog, claims
from rules.claims import version_key
from rules.common import ev, make
from rules.engine import rule
from rules.nccl import _in_range, _scope_holds, in_use_detail, regressions

# What each class of symptom sounds like in a sentence or a log line.
_SHOWS = {
    "hang": r"\bhangs?\b(?!\s+off\b)|\bhung\b|\bhanging\b(?!\s+off\b)|\bstuck\b|\bfreez\w*|\bfroze\w*|\bdeadlock\w*|"
            r"\btim(?:ed|es)\s+out\b|\bwatchdog\b|\bnever\s+(?:finish|complete|return)\w*|\bblocks?\s+forever\b",
    "memory": r"\bout of memory\b|\bOutOfMemoryError\b|\bOOM\w*|\bCUDA_ERROR_OUT_OF_MEMORY\b|"
              r"\bmemory\b[^.\n;]{0,40}?\b(?:grow\w*|increas\w*|leak\w*|higher|overhead|spik\w*|jump\w*|explod\w*|"
              r"goes up|went up|rises|rose|doubl\w*)|"
              r"\b(?:more|extra|additional|higher|excessive|increased?)\b[^.\n;]{0,25}?\bmemory\b|"
              r"\b\d+(?:\.\d+)?\s*Gi?B\s+(?:more|extra)\b",
    "slow": r"\bslow\w*|\bregress\w*|\bdrops?\b|\bdropped\b|\blower\b|\bdegrad\w*|\b(?:takes?|took|taking)\s+"
            r"(?:much\s+|far\s+|a lot\s+)?longer\b|\bworse\b|"
            r"\blow\b(?=[^.\n;]{0,20}\b(?:bandwidth|busbw|throughput)\b)|"
            r"\b(?:bandwidth|busbw|throughput)\b[^.\n;]{0,25}?\blow\b",
}
# One thought: a sentence, cut at its line breaks and contrasts ("all_reduce runs, but alltoall hangs"); not at
# "while", which mostly says when ("runs out of memory while capturing CUDA graphs").
_CLAUSE_CUT = re.compile(r"\n|;|\bbut\b|\bwhereas\b|\bhowever\b|\bexcept\b", re.I)


@functools.lru_cache(maxsize=None)
def _at_pattern(words: tuple[str, ...]) -> re.Pattern:
    """The row's `at` words as one pattern: whole words (an identifier's "_" parts count: all_to_all_single),
    case-blind, "_", "-" and " " interchangeable."""
    parts = [r"[\s_-]?".join(map(re.escape, re.split(r"[\s_-]+", w))) for w in sorted(words, key=len, reverse=True)]
    return re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(parts) + r")(?![A-Za-z0-9])", re.I)  # all_to_all_single


def _texts(facts: Facts) -> list[tuple[str, str, bool]]:
    """(source, text, printed) of what a tool printed (pasted output, NCCL's own warnings), then what the reporter
    wrote."""
    pasted = [(n.source, n.text, True) for n in facts.of(Note) if n.kind == claims.OUTPUT_KIND and n.text]
    logs = [(e.source, e.message, True) for e in facts.of(NcclEvent) if e.kind in ("warn", "error") and e.message]
    return pasted + logs + [(source, text, False) for source, text in claims.texts(facts)]


def symptom_said(facts: Facts, row: dict) -> tuple[str, str, bool] | None:
    """(source, quote, printed by a tool) of a clause that says the row's symptom where the row says it shows, neither
    ruled out ("alltoall does not hang") nor asked about or guessed; None otherwise."""
    at = _at_pattern(tuple(row["at"]))
    shows = re.compile("|".join(_SHOWS[s] for s in row["shows"]), re.I)
    veto = _at_pattern(tuple(row["veto"])) if row.get("veto") else None
    if _solved_otherwise(facts, row):
        return None
    if row.get("named") and not any(_at_pattern(tuple(row["named"])).search(t) for _, t, _ in _texts(facts)):
        return None  # (review33b) everyday `at` words ("sharing resources") with the feature itself never named
    for source, text, printed in _texts(facts):
        for sentence in claims.sentences(text):
            if claims.asked(sentence) or claims.guessed(sentence):
                continue
            for clause in _CLAUSE_CUT.split(sentence):
                if not at.search(clause) or (veto and veto.search(clause)) or _other_cause(clause):
                    continue
                for m in shows.finditer(clause):
                    if not claims.negated_words(clause, m) and not _NOTHING_BEFORE.search(clause[:m.start()]):
                        quote = claims.one_line(clause)[:200]
                        return _cite(source, quote), quote, printed
    return None


# "nothing hangs", "no rank hangs": a subject that denies the symptom, which claims' "not"/"never" words miss.
_NOTHING_BEFORE = re.compile(r"\b(?:nothing|none|no\s+\w+)\s+$", re.I)

# "... because the firewall blocks port 29500": a cause the reporter names that is not NCCL's release or cuMem/NVLS.
_BECAUSE = re.compile(r"\b(?:because|due to|caused by|as a result of)\b(?P<cause>[^.;\n]*)", re.I)
# NCCL's own tuning (its algorithm / protocol choice) is an NCCL cause too: "hangs ... due to inconsistent ALGO/PROTO
# selection in tuning" (NVIDIA/nccl#1136).
_NCCL_CAUSE = re.compile(r"\bNCCL\b|\bcuMem\b|\bNVLS\b|\b2\.\d{1,2}(?:\.\d+)?\b|\btuning\b|\balgo(?:rithm)?s?\b|"
                         r"\bproto(?:col)?s?\b", re.I)


def _other_cause(clause: str) -> bool:
    return any(not _NCCL_CAUSE.search(m.group("cause")) for m in _BECAUSE.finditer(clause))


def _solved_otherwise(facts: Facts, row: dict) -> bool:
    """The reporter says the problem is gone through a change that is neither an NCCL release nor the row's own
    workaround ("We set NCCL_SOCKET_IFNAME wrong and fixed it")."""
    said = claims.solved(facts)
    if said is None:
        return False
    own = re.findall(r"\b(NCCL_[A-Z0-9_]+)=", row.get("fix", ""))
    return not (re.search(r"\b2\.\d{1,2}(?:\.\d+)?\b|\bNCCL\s+(?:version|release)|\bupgrad|\bdowngrad",
                          said.quote, re.I) or any(name in said.quote for name in own))


def _cite(source: str, quote: str) -> str:
    """Where in a text read from several lines a quote (or a release) was said."""
    return source.line_of(quote) if isinstance(source, claims.ProseSource) else source


def _named_at(facts: Facts, version: str) -> str:
    """The line of the reporter's text that names a release."""
    return next((_cite(source, version) for source, text in claims.texts(facts) if version in text), "description")


def _needs_hold(facts: Facts, row: dict) -> bool:
    """The row's facts beyond scope: a setting it needs set; NVLS only where a GPU is NVLS-capable (NVSwitch, Hopper
    or newer), unknown GPUs left open."""
    if s := row.get("setting"):
        name, _, value = s.partition("=")
        if not any(x.name == name and x.value.strip() == value for x in facts.of(NcclSetting)):
            return False
    if "nvls" in row.get("needs", []):
        gpu = getattr(getattr(facts, "subject", None), "gpu", None)
        if gpu is not None and (gpu.compute_capability < 9.0 or gpu.nvlink_domain < 4):
            return False
    return True


def _versions(facts: Facts) -> list[tuple[str, object, str]]:
    """(version, where, how) of the NCCL release the ticket runs: printed by a tool; failing that, what the reporter
    says runs (_named_running); failing that, looked up from a container tag."""
    printed = [(v.version, v, "printed") for v in facts.printed_nccl_versions()]
    named = [(v, _cite(source, v), "named") for source, text in claims.texts(facts) for v in _named_running(text)]
    return printed or named or [(v.version, v, "tag") for v in facts.of(NcclVersion) if v.derived_from]


# "from 2.19.3 to 2.23.4": the release left behind is not the one running.
_FROM_SIDE = re.compile(r"\bfrom\s+(?:NCCL\s+)?v?(\d+\.\d+(?:\.\d+)?)\s+to\b", re.I)


def _named_running(text: str) -> list[str]:
    """NCCL releases one text says run: those said to fail and the newest named (what nccl.regression reads); never
    one said to work, nor the "from" side of an upgrade."""
    good, bad = claims.release_sides(text)
    left = {m.group(1) for m in _FROM_SIDE.finditer(text)}
    named = [v for v in claims.nccl_versions(text) if v not in good and v not in left]
    return sorted({v for v in named if v in bad} | set(sorted(named, key=version_key)[-1:]), key=version_key)


def _fixed_fails(facts: Facts, row: dict) -> bool:
    """A release at or after the row's fix said to fail too: the symptom is not this regression."""
    return any(version_key(v) >= version_key(row["fixed"])
               for _, text in claims.texts(facts) for v in claims.release_sides(text)[1])


def _said_good(facts: Facts) -> list[str]:
    """NCCL releases the reporter says work."""
    return sorted({v for _, text in claims.texts(facts) for v in claims.release_sides(text)[0]}, key=version_key)


def _works_outside(facts: Facts, row: dict, good: list[str]) -> list[str]:
    """Releases outside the row's range the reporter's A/B sets against the failing one: said to work, or named in a
    comparison of NCCL releases ("downgrading to 2.18.6 fixes it") below the range's start."""
    out = [g for g in good if not _in_range(g, row["bad"])]
    floor = re.search(r">=\s*([\d.]+)", row["bad"])
    for c in claims.find(facts, "nccl_versions_compared"):
        out += [v for v in c.data["versions"] if floor and version_key(v) < version_key(floor.group(1))]
    return sorted(set(out), key=version_key)


def _engine_sets(facts: Facts, row: dict) -> tuple[object, str, dict] | None:
    """(where, "vLLM 0.5.3", setting row) of an engine release the ticket runs that sets one of the row's
    `ruled_out_by` settings itself, unless the ticket sets what the engine then leaves alone (kept_if)."""
    said = {f"{s.name}={s.value.strip()}" for s in facts.of(NcclSetting)}
    texts = [text for _, text, _ in _texts(facts)]
    for w in facts.of(Workload):
        named = catalog.framework_release(w.framework)
        for s in catalog.engine_nccl_settings(*named) if named else []:
            kept = s.get("kept_if")
            if s["setting"] in row.get("ruled_out_by", ()) and not (
                    kept and (kept in said or any(kept in t for t in texts))):
                return w.source, f"{s['engine']} {named[1]}", s
    return None


def _ruled_out(row: dict, version: str, by: tuple[object, str, dict], said: tuple[str, str, bool]):
    """The info finding for a regression whose symptom the ticket shows but whose setting the engine overrides."""
    where, engine, s = by
    return make(
        "nccl.known_regression", "other", "info", 0.3,
        f"Known NCCL regression {row['id']} ruled out: {engine} sets {s['setting']} itself",
        f"NCCL {version} is inside {row['bad']} and the ticket describes the symptom ({row['symptom']}), but "
        f"{engine} sets {s['setting']} itself (releases {s['first']} to {_last(s)}), under which "
        "this regression cannot show: look for another cause.",
        [ev(said[0], f'the symptom as the ticket says it: "{said[1]}"'),
         ev(where, f"{engine} sets {s['setting']} (rules/catalog/engine_nccl_settings.toml)", s["setting"],
            f"{s['first']} to {_last(s)}")],
        fix="Look past this NCCL regression; attach the NCCL_DEBUG=INFO log and the engine's full error.",
        refs=s.get("sources", []) + [row["url"]])


def _how(how: str, where) -> str:
    """How the release in use was read, in words."""
    return f"derived from {where.derived_from}" if how == "tag" else how


def _last(s: dict) -> str:
    """The end of an engine setting's release window, in words."""
    return f"before {s['until']}" if "until" in s else f"{s['checked_through']} at least"


def _symptom_rows() -> list[dict]:
    return [r for r in regressions() if r.get("shows") and r.get("at")]


@rule("nccl.known_regression", "nccl_regression", "other")
def known_regression(facts: Facts, predictions=None):
    """A known NCCL regression whose release range holds the version in use and whose symptom the ticket describes;
    the version alone in a range is context."""
    versions = _versions(facts)
    if not versions:
        return
    good = _said_good(facts)
    context = None
    for row in _symptom_rows():
        inside = [v for v in versions if _in_range(v[0], row["bad"])]
        if not inside or not _scope_holds(facts, row) or not _needs_hold(facts, row) or _fixed_fails(facts, row):
            continue
        version, where, how = inside[0]
        works_inside = [g for g in good if _in_range(g, row["bad"])]
        said = None if works_inside else symptom_said(facts, row)
        where_ev = ev(where, in_use_detail(where) if isinstance(where, NcclVersion) else
                      "NCCL release the reporter names", version, row["bad"])
        if said is None:
            context = context or make(
                "nccl.known_regression", "other", "info", 0.3,
                f"NCCL {version} is in the range of a known regression ({row['id']})",
                f"If the symptom matches ({row['symptom']}), this release may be the cause; the ticket does not "
                "describe that symptom" + (f" and says NCCL {works_inside[0]} works." if works_inside else "."),
                [where_ev], fix=row["fix"], refs=[row["url"]])
            continue
        by = _engine_sets(facts, row)
        if by is not None:
            context = _ruled_out(row, version, by, said)
            continue
        outside = _works_outside(facts, row, good)
        evidence = [ev(said[0], f'the symptom as {"a tool printed" if said[2] else "the ticket says"} it: "{said[1]}"'),
                    where_ev,
                    ev(f"rules/catalog/nccl_regressions.toml:{row['id']}", row["symptom"], version, row["bad"])]
        if outside:
            evidence.append(ev(_named_at(facts, outside[-1]), "NCCL release the reporter's A/B sets against it "
                               "(works)", outside[-1], f"outside {row['bad']}"))
        yield make(
            "nccl.known_regression", "nccl_regression", "warning",
            0.75 if outside else (0.55 if how == "tag" else 0.65) + (0.05 if said[2] else 0),
            f"NCCL {version} has a known regression with this symptom ({row['id']}, fixed in {row['fixed']})",
            f"The ticket runs NCCL {version} ({_how(how, where)}), inside {row['bad']}, and describes what this "
            "regression does: "
            f"{row['symptom']}. " + (f"The reporter's NCCL {outside[-1]}, outside that range, works. " if outside
                                     else "")
            + f"NCCL {row['fixed']} fixed it.",
            evidence, fix=row["fix"], refs=row.get("sources", [row["url"]]))
        return
    if context:
        yield context
