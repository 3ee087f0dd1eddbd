"""Numbers as a person reads them, for every output: reports, tables and plots alike.

Neutral ground: the renderers, compare and fleet all format with these, so none of them imports
another's formatter."""

from __future__ import annotations


def fmt_value(value, unit: str | None = None) -> str:
    """A number as a person reads it: 3 significant figures, thousands separated."""
    if value is None:
        return "—"
    if (unit in ("bytes", "B") and isinstance(value, (int, float)) and not isinstance(value, bool)
            and abs(value) >= 1 << 20):
        return _binary_size(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value == 0:
            text = "0"
        elif abs(value) >= 1000:
            text = f"{value:,.0f}"
        elif abs(value) >= 100:
            text = f"{value:.0f}"
        elif abs(value) >= 10:
            text = f"{value:.1f}"
        elif abs(value) >= 0.01:
            # a value already rounded to one decimal (a percentage) is not printed with a made-up second one
            text = f"{value:.1f}" if value == round(value, 1) else f"{value:.2f}"
        else:
            text = f"{value:.2g}"
    elif isinstance(value, int):
        text = f"{value:,}"
    elif isinstance(value, (list, tuple)):
        text = ", ".join(fmt_value(v) for v in value)
    else:
        text = str(value)
    return f"{text} {unit}" if unit else text


def _binary_size(n: float) -> str:
    """Bytes as a person reads them: 536870912 -> '512 MiB', 25276514304 -> '23.5 GiB'."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if abs(n) >= size:
            return f"{fmt_value(float(n) / size)} {unit}"
    return f"{n:,} bytes"


def fmt_bytes(value: float) -> str:
    """Message sizes the way nccl-tests users say them: 8B, 64K, 1M, 2G."""
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if value >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.3g}B"


def distinct_cuts(names: list[str], width: int) -> list[str]:
    """Each name cut to about `width` characters, distinct names kept distinct: where cut ends collide
    (kernels that differ past the cut: tile sizes, template arguments), each keeps its start and,
    after an ellipsis, the part around where it first differs from the names it collides with; a
    name no such window tells apart stays whole."""
    import os

    labels = [n if len(n) <= width else n[: width - 1] + "…" for n in names]
    head = width // 4
    room = width - head - 2
    for _ in range(4):
        groups: dict[str, list[int]] = {}
        for i, label in enumerate(labels):
            groups.setdefault(label, []).append(i)
        clashes = [idx for idx in groups.values() if len({names[i] for i in idx}) > 1]
        if not clashes:
            break
        for idx in clashes:
            for i in idx:
                n = names[i]
                d = max(len(os.path.commonprefix([n, names[j]])) for j in idx if names[j] != n)
                start = min(max(head, d - room // 2), max(head, len(n) - room))
                window = n[:head] + "…" + n[start:start + room] + ("…" if start + room < len(n) else "")
                labels[i] = window if window != labels[i] else n  # no progress: whole
    else:
        seen: dict[str, int] = {}
        for label in labels:
            seen[label] = seen.get(label, 0) + 1
        labels = [n if seen[label] > 1 else label for n, label in zip(names, labels)]
    return labels
