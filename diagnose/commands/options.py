"""Options and the report hand-off every command shares: bounded option types (bad values fail
at parse time, exit 2), the output options, and `finish`, which renders, stores and sets the exit code."""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import sys

import click

from diagnose.errors import EXIT_FINDINGS, EXIT_OK, DiagnoseError, ProbeError
from diagnose.inputs import MAX_BATCH, MAX_GPUS, MAX_TOKENS, SQLITE_MAX_INT  # noqa: F401 - the commands' option bounds

SEVERITY_CHOICES = ("critical", "warning", "info", "never")




def gpu_count(**kwargs) -> click.IntRange:
    """A TP/PP/DP size or GPU count: at least 1, at most what a cluster can have."""
    return click.IntRange(min=1, max=MAX_GPUS, **kwargs)


def token_count() -> click.IntRange:
    """A prompt, context or output length in tokens (the model's own window is checked later)."""
    return click.IntRange(min=1, max=MAX_TOKENS)


def batch_size() -> click.IntRange:
    """Sequences in one step, or concurrent users."""
    return click.IntRange(min=1, max=MAX_BATCH)


def since_option(help_text: str):
    """--since 7d / 12h / an ISO time, checked at parse time (diagnose.store.parse_since)."""

    def check(ctx, param, value):
        if value is None:
            return None
        from diagnose import store
        from diagnose.errors import InputError

        try:
            store.parse_since(value)
        except InputError as exc:
            raise click.BadParameter(str(exc).removeprefix("--since: "), ctx, param) from None
        return value

    return click.option("--since", callback=check, help=help_text)


QUANT_HELP = ("GGUF weight type it runs as (llama.cpp, Ollama): Q4_K_M, Q5_K_M, Q6_K, Q8_0, IQ4_XS, ... "
              "(rules/catalog/gguf_types.toml): the weights stream its blocks' bytes [default: the type an Ollama tag "
              "names, Q4_K_M for a bare tag like llama3.1:8b].")


def quant_option(func):
    """--quant, the same in predict, plan and scaling (weights() reads it)."""
    return click.option("--quant", help=QUANT_HELP)(func)


BUILD_HELP = ("The llama.cpp build that ran: its number or release tag (3447, b3447) or a date (2024, 2024-03, "
              "2024-03-15). It picks the profile of its side of the CUDA-graphs boundary (engines.toml build_twin), "
              "as a ticket stating it does [default: unstated].")


def build_option(func):
    """--build, the same in predict, plan and scaling (stated_builds() reads it)."""
    return click.option("--build", "build", help=BUILD_HELP)(func)


def stated_builds(build: str | None, engine: str | None, gguf: str | None) -> list[str]:
    """--build as the parsers write a build ('b3447', '2024-03'), for an engine with a build boundary; bad input (no
    build, or an engine without a boundary: the value would be ignored) exits 2."""
    from diagnose.errors import InputError
    from rules import catalog

    if not build:
        return []
    value = build.strip().lower()
    if re.fullmatch(r"20(?:2[3-9]|[3-9]\d)", value):
        raise InputError(f"--build {build}: a year or build b{value}? Write b{value} for the build, or {value}-MM "
                         "for a month")
    if re.fullmatch(r"b?\d{3,5}", value):
        value = f"b{int(value.lstrip('b'))}"
    elif not catalog.BUILD_DATE.fullmatch(value):
        raise InputError(f"--build {build!r}: give a llama.cpp build number or tag (b3447) or a date "
                         "(2024-03)")
    named = catalog.engine(engine if engine else "llamacpp" if gguf else None)
    if not named.build_twin:
        raise InputError(f"--build {build}: {named.name} has no build boundary in engines.toml (a llama.cpp build "
                         "is for --engine llamacpp or GGUF weights)")
    return [value]


def engine_run(engine: str | None, gpu, gguf: str | None, build: str | None, flash_attn: str | None = None) -> tuple:
    """(profile, releases) predict and plan run for --engine: the one its name, --build and --flash-attn pick, or,
    where the name states no release of an engine whose releases run several profiles ('vllm', 'tgi', 'trtllm'), the
    newest release's, with every candidate (rules.catalog.release_candidates) for the band, as a ticket naming it
    gets. --flash-attn unstated takes llama-bench's default for the build, as a published row or a ticket without a
    llama-server line does (rules.catalog.attention_build)."""
    from rules import catalog

    fa = {"on": True, "off": False, "auto": "auto"}.get(flash_attn or "")
    named = catalog.run_engine(engine, gpu, gguf, stated_builds(build, engine, gguf), fa)
    releases = catalog.release_candidates(engine)
    return (releases[-1] if releases else named), releases


@dataclasses.dataclass(frozen=True)
class Weights:
    """The weights a command predicts with, and where they come from: 'given' (--dtype, --quant), 'stated' (the
    model's own name) or 'assumed' (a default), as scaling's layout table shows them."""

    dtype: str | None
    gguf: str | None
    how: str
    source: str


CHECKPOINT_WEIGHTS = "the checkpoint's dtype (rules/catalog/models.toml checkpoint_dtype, else bf16)"


def weights(model_name: str | None, dtype: str | None, quant: str | None, engine: str | None = None) -> Weights:
    """The weight dtype and GGUF type a command predicts with, as the ticket rules read them
    (rules.workload.weight_dtype, quant_group): --quant, else --dtype, else what the model's name states
    (rules.catalog.named_weights: '-AWQ', 'GPTQ-Int8', '-FP8-Dynamic', 'Q4_K_M', a GGUF file's or Ollama tag's type),
    else None (the checkpoint's own). The dtype follows a GGUF type unless --dtype is given, and a --dtype the --quant
    type is not is bad input. A 16-bit type (F16, BF16) is still GGUF weights: it is returned too, so the llama.cpp
    profile runs them (rules.catalog.run_engine). `--engine ollama` with a model that names no weights pulls the
    library's 4-bit default, as a ticket naming Ollama assumes (rules.workload.ollama_default). A config.json is read
    for its own quantization_config (rules.catalog), not for its path's words."""
    from diagnose.errors import InputError
    from rules import catalog

    name = str(model_name or "")
    said = None if re.search(r"\.json$", name, re.I) else catalog.named_weights(model_name)
    stated = f"the model name '{name}' (its quantisation, rules.catalog.named_weights)"
    if quant:
        kind = catalog.gguf_type(quant)
        if dtype and dtype != kind.dtype:
            raise InputError(f"--quant {kind.name} stores {kind.dtype} weights; --dtype {dtype} contradicts it")
        how, source = "given", "--quant"
    elif dtype:
        return Weights(dtype, None, "given", "--dtype")
    elif re.search(r"\.gguf$", name, re.I):
        if not (named := catalog.named_gguf(model_name)):  # 16-bit or 4-bit: off by up to 4x, never guessed
            raise InputError(f"cannot read the GGUF weight type from the file name '{model_name}' (a name such as "
                             "model.Q4_K_M.gguf states it; llama.cpp prints it as 'file type' when it loads the "
                             "file): give it with --quant TYPE, or the weights with --dtype")
        kind, how, source = catalog.gguf_type(named), "stated", stated  # a GGUF file's name names its type
    elif catalog.tag_weights(model_name) or (str(engine or "").strip().lower() == "ollama" and not said):
        # a 16-bit tag ("llama3.1:8b-instruct-fp16") pulls a GGUF file too: its F16/BF16 type
        tag = catalog.tag_weights(model_name) or catalog.OLLAMA_DEFAULT_WEIGHTS
        # (a model named by its catalog name ships what its library ships: gpt-oss-20b is MXFP4 in every tag)
        own = catalog.ollama_default_gguf(model_name)
        named = catalog.named_gguf(model_name) or own or {
            "fp16": "F16", "bf16": "BF16", catalog.OLLAMA_DEFAULT_WEIGHTS: catalog.OLLAMA_DEFAULT_GGUF}.get(tag)
        kind = catalog.gguf_type(named) if named else None
        how, source = ("stated", stated) if said else ("assumed", (
            "the weights every tag of its Ollama library ships (rules/catalog/ollama_tags.toml [default_gguf])" if own
            else "an Ollama library tag that names no weights pulls its 4-bit default (Q4_K_M)"))
    elif said:
        return Weights(said, None, "stated", stated)
    else:
        return Weights(None, None, "assumed", CHECKPOINT_WEIGHTS)
    if kind is None:
        return Weights(dtype, None, how, source)
    return Weights(kind.dtype, kind.name, how, source)


class FiniteFloat(click.ParamType):
    """A float that is finite and within [low, high] (`low_open`: strictly above low): 'nan',
    'inf' and '1e999' are bad usage, never a threshold every comparison fails."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None, low_open: bool = False):
        self.low, self.high, self.low_open = low, high, low_open

    def convert(self, value, param, ctx):
        import math

        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if self.low is not None and (number <= self.low if self.low_open else number < self.low):
            self.fail(f"{value} must be {'above' if self.low_open else 'at least'} {self.low:g}", param, ctx)
        if self.high is not None and number > self.high:
            self.fail(f"{value} must be at most {self.high:g}", param, ctx)
        return number


class InputPath(click.ParamType):
    """A path the user hands us to read, checked by diagnose.inputs.check_path at parse time:
    it exists, is a regular file (or a folder with `folder`), not a FIFO, device or /proc file,
    and within the size bound of its kind. Returns the path (a str) with a leading `~` expanded, as the shell would
    have (`--db=~/runs.db` reaches the program unexpanded): what is checked is what is read. `missing_ok`: a path
    that does not exist is left to the command (a results database says how to make one)."""

    name = "path"

    def __init__(self, kind: str, folder: bool | None = False, missing_ok: bool = False):
        self.kind, self.folder, self.missing_ok = kind, folder, missing_ok  # folder=None: a file or a folder

    def convert(self, value, param, ctx):
        import os as _os

        from diagnose.errors import InputError
        from diagnose.inputs import check_path

        value = _os.path.expanduser(str(value))
        if self.missing_ok and not _os.path.lexists(value):
            return value
        folder = _os.path.isdir(value) if self.folder is None else self.folder
        try:
            check_path(value, self.kind, folder=folder)
        except InputError as exc:
            self.fail(str(exc), param, ctx)
        return value


def output_options(func=None, *, default_format: str = "terminal", reads=None):
    """The options every report-producing command shares.

    `@output_options` or `@output_options(default_format="md")` (a ticket's report is pasted back
    into the ticket, so `diagnose ticket` defaults to Markdown). `reads(params)`: the files the
    command reads from its parameters, where it reads fewer than every file in a folder given
    (fleet reads only a folder's *.json), so `-o FOLDER/fleet.html` stays allowed.
    """
    if func is None:
        return functools.partial(output_options, default_format=default_format, reads=reads)

    @click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (schema diagnose.report/1).")
    @click.option(
        "--format",
        "fmt",
        type=click.Choice(["terminal", "json", "md", "html"]),
        default=None,
        help=f"Output format (default {default_format}): terminal, json, md (Markdown for tickets), "
             "html (one self-contained file).",
    )
    @click.option("-o", "--output", type=OutputPath(), help="Write the report to FILE instead of printing it.")
    @click.option(
        "--fail-on",
        type=click.Choice(SEVERITY_CHOICES),
        default="critical",
        show_default=True,
        help="Exit 1 when a finding is at or above this severity; 'never' always exits 0.",
    )
    @click.option(
        "--catalog",
        "catalogs",
        multiple=True,
        type=InputPath("catalog"),
        help="Extra catalog file (TOML) with GPUs, interconnects or models; repeatable. Also $DIAGNOSE_CATALOG.",
    )
    @click.option(
        "--save",
        is_flag=True,
        help="Store the report in the results database ($DIAGNOSE_DB, else ~/.local/share/diagnose/runs.db); "
        "always done when $DIAGNOSE_DB is set.",
    )
    @functools.wraps(func)
    def wrapper(*args, as_json, fmt, output, fail_on, catalogs, save, **kwargs):
        from rules import catalog

        catalog.configure(extra_files=catalogs)
        catalog.check()  # a broken --catalog or $DIAGNOSE_CATALOG is bad input in every command
        if as_json and fmt not in (None, "json"):
            raise click.UsageError(f"--json and --format {fmt} contradict each other; give one")
        if as_json:
            fmt = "json"
        save = save or bool(os.environ.get("DIAGNOSE_DB"))
        if output:
            check_writable(output, "-o")  # before a long probe run, not after it
            params = {**kwargs, "catalog": catalog.extra_files(),
                      "db": [kwargs.get("db_path"), _db_path() if save else None]}
            refuse_overwriting_an_input(output, {**params, **(reads(kwargs) if reads else {})})
        report = func(*args, **kwargs)
        finish(report, fmt or default_format, output, fail_on, save=save)

    return wrapper


def _db_path() -> str:
    """The results database --save writes (diagnose.store is imported only when a run is saved)."""
    from diagnose.store import default_path

    return str(default_path())


def check_writable(path: str, option: str) -> None:
    """Refuse an output path whose folder is missing, read-only or not a real folder (/proc,
    /sys) before any work is done. An existing link or device (`-o /dev/stdout`) is written
    through, not created beside (diagnose.outputs), so only it must take writing. A leading `~` is the home
    folder here as in OutputPath, which hands the writer the same expanded path."""
    import stat
    from pathlib import Path

    path = os.path.expanduser(path)
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        if os.path.exists(path) and not os.access(path, os.W_OK):
            from diagnose.errors import InputError

            raise InputError(f"{option} {path}: not writable")
        return
    folder = Path(path).absolute().parent
    if not folder.is_dir():
        from diagnose.errors import InputError

        raise InputError(f"{option} {path}: folder {folder} does not exist" if not folder.exists()
                         else f"{option} {path}: {folder} is not a folder")
    _check_can_create(folder, f"{option} {path}")


def check_writable_folder(path: str, option: str) -> None:
    """An output folder (made if missing, like `mkdir -p`): it, or its nearest existing parent,
    must be a folder where files can be created."""
    from pathlib import Path

    from diagnose.errors import InputError

    folder = Path(path).expanduser().absolute()
    existing = next(p for p in (folder, *folder.parents) if p.exists() or p.is_symlink())
    if not existing.is_dir():
        raise InputError(f"{option} {path}: {existing} is not a folder")
    _check_can_create(existing, f"{option} {path}")


def _check_can_create(folder, what: str) -> None:
    """Create and remove a file in `folder`: os.access says yes to root in /sys and /proc, where
    creating a file still fails, so only trying tells."""
    import tempfile

    from diagnose.errors import InputError

    try:
        fd, probe = tempfile.mkstemp(prefix=".diagnose-write-check-", dir=folder)
    except OSError as exc:
        raise InputError(f"{what}: cannot write in {folder} ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(probe)


class OutputPath(click.ParamType):
    """A file (or, with `folder`, a folder) the command will write, checked at parse time so a
    bad one is exit 2 before any work, never an OSError after it."""

    name = "path"

    def __init__(self, folder: bool = False):
        self.folder = folder

    def convert(self, value, param, ctx):
        from diagnose.errors import InputError

        option = param.opts[-1] if param is not None and param.opts else "path"
        value = os.path.expanduser(str(value))  # (`-o=~/x.json` reaches us unexpanded: checked and written expanded)
        if not self.folder and os.path.isdir(value):
            self.fail(f"{value} is a folder; give a file name", param, ctx)
        try:
            (check_writable_folder if self.folder else check_writable)(value, option)
        except InputError as exc:
            self.fail(str(exc).removeprefix(f"{option} "), param, ctx)
        return value


def refuse_overwriting_an_input(output: str, params: dict) -> None:
    """`-o` must be none of the files the command reads, checked before anything is written:
    `-o run.sqlite` on `diagnose capture run.sqlite`, `-o DIR/attachment1.txt` on `ticket DIR`
    (every file inside a folder given counts), a hard link to an input, or a file with the same
    content as one (and `-o` = `--record` would replace the recording)."""
    from diagnose.errors import InputError

    out_real = os.path.realpath(output)
    out_is_file = os.path.isfile(output)
    files = []
    for key, path in _input_paths(params):
        if key == "record":
            if os.path.realpath(path) == out_real:
                raise InputError(f"-o {output} is the --record file; write the report to another file")
            continue
        files += [(f, path) for f in _files_under(path)]
    for by_content in (False, True):  # the file itself first, so the message names it rather than a copy
        for f, path in files:
            if (out_is_file and _same_content(f, output)) if by_content else (
                    os.path.realpath(f) == out_real or out_is_file and os.path.samefile(f, output)):
                what = "one of the inputs" if f == path else f"{f}, which the command reads from {path}"
                raise InputError(f"-o {output} {'has the same content as' if by_content else 'is'} {what}; "
                                 "write the report to another file")


def _input_paths(params: dict):
    """(option, path) for every existing path among the command's parameters: lists, comma-separated
    per-rank exports, FILE=TP pairs."""
    for key, value in params.items():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if not isinstance(item, str):
                continue
            for part in item.split(","):
                for path in (part, part.split("=", 1)[0]):
                    if path and (os.path.lexists(path) or key == "record"):
                        yield key, path
                        break


def _files_under(path: str) -> list[str]:
    """The path itself, or every file in the folder (links included: they may lead anywhere)."""
    if not os.path.isdir(path):
        return [path] if os.path.exists(path) else []
    return [os.path.join(d, f) for d, _, files in os.walk(path) for f in files if os.path.exists(os.path.join(d, f))]


def _same_content(a: str, b: str) -> bool:
    """Two regular files with the same bytes (size first, so a real check reads almost nothing)."""
    import filecmp

    try:
        return os.path.isfile(a) and os.path.getsize(a) == os.path.getsize(b) and filecmp.cmp(a, b, shallow=False)
    except OSError:
        return False


def finish(report, fmt: str, output: str | None, fail_on: str, save: bool = False) -> None:
    """Render the report, then store it (--save or $DIAGNOSE_DB), and exit with the code
    DESIGN.md documents. The report comes first: a damaged or unusable store costs the save
    (one stderr line, exit 3, a tool-side failure), never the report of a run that worked."""
    import sqlite3

    from diagnose.report import write
    from rules.engine import fails

    write(report, fmt, output)
    if save:
        from diagnose import store

        if report.kind not in store.NOT_STORED:
            shown = f"written to {output}" if output else "printed"
            try:
                run_id = store.save(report)
            except (DiagnoseError, sqlite3.Error, OSError) as exc:
                raise ProbeError(f"the report was {shown} but not saved: {exc}") from None
            click.echo(f"diagnose: saved as run {run_id} in {store.default_path()}", err=True)
    sys.exit(EXIT_FINDINGS if fails(report.findings, fail_on) else EXIT_OK)


def int_list(text: str | None, option: str | None = None, high: int = MAX_GPUS) -> list[int] | None:
    """'1,2,4,8' -> [1, 2, 4, 8]; `option` names the flag in the error message; each value at most `high`."""
    if text is None:
        return None
    try:
        values = [int(x) for x in str(text).replace(" ", "").split(",") if x]
    except ValueError:
        raise click.BadParameter(f"expected integers separated by commas, got {text!r}", param_hint=option) from None
    if not values or any(v < 1 for v in values):
        raise click.BadParameter(f"expected positive integers, got {text!r}", param_hint=option)
    if max(values) > high:
        raise click.BadParameter(f"{max(values)} is beyond any real value (at most {high:,})", param_hint=option)
    return values
