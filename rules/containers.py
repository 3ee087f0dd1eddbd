"""An NGC container tag, a PyTorch release or an engine release a ticket names, read into the NCCL it brings.

The parser (diagnose/artifacts/container_tag.py) only says which tag was written; here, once before the rules run
(rules.engine.evaluate), the tag becomes the facts a stated version gives: the NCCL release (NcclVersion, marked
derived_from the tag) and a software note with the CUDA and driver (rules/catalog/ngc_containers.toml); a release
said without its image ("NGC 24.05") gives the NCCL only where the table's images of that release agree. A release the
table lacks stays unknown; an NCCL version a tool printed (NCCL's own log line, collect_env) is the one in use, so a
tag adds none beside it.

Where neither a printed version nor a tag says it, the PyTorch release the ticket runs ("PyTorch version:
2.4.0+cu121", "torch==2.3.1") gives the NCCL its wheel depends on, and failing that an engine release that pins one
torch release (vLLM 0.6.3 -> torch 2.4.0) gives that torch's (rules/catalog/torch_nccl.toml); several torch releases
named, or a CUDA variant the table lacks, leave it unknown.
"""

from __future__ import annotations

from diagnose.evidence import Facts, NcclVersion, Note, Workload
from rules.catalog import engine_torch, framework_release, ngc_container, ngc_release_nccl, torch_nccl


def derive_container_versions(facts: Facts) -> None:
    """Add the versions each named NGC tag ships, once per tag (evaluate may run twice on the same facts)."""
    printed = bool(facts.printed_nccl_versions())
    done = {n.data.get("derived_from") for n in facts.of(Note) if n.kind == "software"}
    for note in [n for n in facts.of(Note) if n.kind == "container_tag"]:
        tag = note.text
        row = (ngc_container(note.data["image"], note.data["release"], note.data["variant"]) if note.data["image"]
               else ngc_release_nccl(note.data["release"]))  # "NGC 24.05": what all its images' rows agree on
        if row is None or tag in done:
            continue
        done.add(tag)
        stated = {k: row[k] for k in ("nccl", "cuda", "driver") if k in row}
        facts.add(Note(note.source, "software", f"{tag} (release notes): " + ", ".join(
            f"{k} {v}" for k, v in stated.items()), {**stated, "derived_from": tag, "url": row["url"]}))
        if "nccl" in row and not printed:
            facts.add(NcclVersion(note.source, row["nccl"], derived_from=tag))
    if not any(True for _ in facts.of(NcclVersion)) and not _nccl_named(facts):
        derive_wheel_version(facts)


def _nccl_named(facts: Facts) -> bool:
    """Does the reporter name an NCCL release ("NCCL 2.21.5")? Then that is what runs, not a wheel's pin."""
    from rules import claims

    return any(claims.nccl_versions(text) for _, text in claims.texts(facts))


def derive_wheel_version(facts: Facts) -> None:
    """The NCCL of the one torch release the ticket names (its CUDA variant where written), else of the torch an
    engine release pins; nothing where it is ambiguous or not in the table."""
    pins = [(w, named, engine_torch(*named)) for w in facts.of(Workload)
            if (named := framework_release(w.framework))]
    if any(pin and pin.get("own_nccl") for _, _, pin in pins):
        return
    notes = [n for n in facts.of(Note) if n.kind == "torch_release"]
    if len({n.data["release"] for n in notes}) == 1:
        note = max(notes, key=lambda n: bool(n.data["variant"]))  # "+cu118" says which wheel
        row = torch_nccl(note.data["release"], note.data["variant"])
        if row is not None:
            label = f"torch {note.data['release']}" + (f"+{note.data['variant']}" if note.data["variant"] else "")
            facts.add(NcclVersion(note.source, row["nccl"], derived_from=label))
        return
    if notes:
        return
    for w, m, pin in pins:
        row = torch_nccl(pin["torch"]) if pin else None
        if row is not None:
            label = f"{m[0]} {m[1]} -> torch {pin['torch']}"
            facts.add(NcclVersion(w.source, row["nccl"], derived_from=label))
            return

