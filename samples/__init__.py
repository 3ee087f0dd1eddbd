"""Small inputs shipped with the project, and the generator of synthetic nsys captures."""

from pathlib import Path

CAPTURES = Path(__file__).parent / "captures"


def capture_files(scenario: str) -> list[Path]:
    """The committed export(s) of a scenario: NAME.sqlite, or NAME_rank<R>.sqlite per rank."""
    single = CAPTURES / f"{scenario}.sqlite"
    return [single] if single.exists() else sorted(CAPTURES.glob(f"{scenario}_rank*.sqlite"))
