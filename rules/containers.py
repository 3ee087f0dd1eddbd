"""An NGC container tag a ticket names, read into the versions its release notes state.

The parser (diagnose/artifacts/container_tag.py) only says which tag was written; here, once before the rules run
(rules.engine.evaluate), the tag becomes the facts a stated version gives: the NCCL release (NcclVersion, marked
derived_from the tag) and a software note with the CUDA and driver (rules/catalog/ngc_containers.toml). A release the
table lacks stays unknown; an NCCL version a tool printed (NCCL's own log line, collect_env) is the one in use, so a
tag adds none beside it.
"""

from __future__ import annotations

from diagnose.evidence import Facts, NcclVersion, Note
from rules.catalog import ngc_container


def derive_container_versions(facts: Facts) -> None:
    """Add the versions each named NGC tag ships, once per tag (evaluate may run twice on the same facts)."""
    printed = any(v.derived_from is None for v in facts.of(NcclVersion))
    done = {n.data.get("derived_from") for n in facts.of(Note) if n.kind == "software"}
    for note in [n for n in facts.of(Note) if n.kind == "container_tag"]:
        tag = note.text
        row = ngc_container(note.data["image"], note.data["release"], note.data["variant"])
        if row is None or tag in done:
            continue
        done.add(tag)
        stated = {k: row[k] for k in ("nccl", "cuda", "driver") if k in row}
        facts.add(Note(note.source, "software", f"{tag} (release notes): " + ", ".join(
            f"{k} {v}" for k, v in stated.items()), {**stated, "derived_from": tag, "url": row["url"]}))
        if "nccl" in row and not printed:
            facts.add(NcclVersion(note.source, row["nccl"], derived_from=tag))
