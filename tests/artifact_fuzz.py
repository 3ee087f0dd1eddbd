"""Seeded random and mutated texts for the artifact parsers' fuzz tests (not a test module)."""

from __future__ import annotations

import random
import re
import string

NASTY = ["\x1b[31m", "\r", "\t", "\x00", "\ufffd", "N/A", "-nan", "inf", "1e999", "-1", "0", "#", "[", "]", "=", ":",
         '"', "'", "\\", "`", "{", "}", "<", ">", "/", "|", "\n\n", "NCCL INFO", "NCCL WARN", "via ", "[[measured]]"]


def fuzz_texts(seeds: list[str], n: int = 150, seed: int = 20261129):
    """`n` texts: pure noise, and the seeds cut, spliced, shuffled and with their numbers garbled."""
    rng = random.Random(seed)
    alphabet = string.printable + "│─═▒µ°±"
    for i in range(n):
        base = seeds[i % len(seeds)] if seeds else ""
        how = i % 5
        if how == 0 or not base:
            yield "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 600)))
        elif how == 1:
            yield base[: rng.randint(0, len(base))]
        elif how == 2:
            chars = list(base)
            for _ in range(rng.randint(1, 30)):
                pos = rng.randint(0, len(chars))
                op = rng.random()
                if op < 0.4:
                    chars[pos:pos] = list(rng.choice(NASTY))
                elif op < 0.7:
                    del chars[pos: pos + rng.randint(1, 12)]
                else:
                    chars[pos:pos] = chars[max(0, pos - 20): pos]
            yield "".join(chars)
        elif how == 3:
            lines = base.splitlines()
            rng.shuffle(lines)
            yield "\n".join(lines)
        else:
            yield re.sub(r"\d+(?:\.\d+)?",
                         lambda _: rng.choice(["", "-1", "nan", "1e400", "99999999999999999999", "0.0.0", "x"]), base)


def assert_survives_fuzz(module, seeds: list[str], n: int = 200) -> None:
    """`module.detect` stays in 0..1 and `module.parse` returns records with their source on every fuzz text."""
    for text in fuzz_texts(seeds, n=n):
        assert 0.0 <= module.detect(text) <= 1.0
        for record in module.parse(text, "f"):
            assert str(record.source).startswith("f")
