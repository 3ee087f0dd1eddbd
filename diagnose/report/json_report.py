"""`--json`: the report contract (schema diagnose.report/1), stable keys, sorted findings."""

import json


def render_json(report) -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
