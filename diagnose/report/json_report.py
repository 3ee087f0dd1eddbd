"""`--json`: the report contract (schema diagnose.report/1), stable keys, sorted findings.

Laid out as indent=2 would, except that each item of a list of rows sits on one line. Those
lines come from json's C encoder: indent=2 forces the pure-Python encoder, which took seconds
on a --stats report of 10 MB."""

import json

_LINE = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode  # the C encoder: no indent
SHORT = 20  # a list of at most this many objects (findings, captures) is laid out in full


def render_json(report) -> str:
    out: list[str] = []
    _layout(report.to_dict(), "", out)
    out.append("\n")
    return "".join(out)


def _layout(value, pad: str, out: list[str]) -> None:
    """Objects one key a line; lists of scalars or of rows on one line per item."""
    inner = pad + "  "
    if isinstance(value, dict) and value:
        out.append("{")
        sep = "\n"
        for key, item in value.items():
            out.append(f"{sep}{inner}{_LINE(key)}: ")
            _layout(item, inner, out)
            sep = ",\n"
        out.append(f"\n{pad}}}")
    elif isinstance(value, list) and value and any(isinstance(v, (dict, list)) for v in value):
        out.append("[")
        sep = "\n"
        nested = len(value) <= SHORT and all(isinstance(v, dict) for v in value)
        for item in value:
            out.append(f"{sep}{inner}")
            if nested:
                _layout(item, inner, out)
            else:
                out.append(_LINE(item))
            sep = ",\n"
        out.append(f"\n{pad}]")
    else:
        out.append(_LINE(value))
