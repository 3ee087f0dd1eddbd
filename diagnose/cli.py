"""The `diagnose` command line.

Each command collects facts, evaluates the rules and renders a report; the commands live in
`diagnose/commands/`, one module each. Keep module-level imports here and there to click and
the standard library, so `diagnose --help` stays fast (no pandas, no torch).
"""

from __future__ import annotations

import os
import sys

import click

from diagnose import __version__
from diagnose.commands import COMMANDS
from diagnose.errors import EXIT_BAD_INPUT, EXIT_TOOL_FAILED, DiagnoseError

NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())  # click >= 8.2


class DiagnoseGroup(click.Group):
    """Turns every error into one line on stderr and the documented exit code."""

    def main(self, *args, **kwargs):
        kwargs.setdefault("standalone_mode", True)
        try:
            return super().main(*args, **{**kwargs, "standalone_mode": False})
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except NO_ARGS_IS_HELP as exc:
            exc.show()  # `diagnose` alone: the help text, as every click tool does
            sys.exit(EXIT_BAD_INPUT)
        except click.ClickException as exc:
            click.echo(f"diagnose: {usage_line(exc)}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except click.exceptions.Abort:
            click.echo("diagnose: aborted", err=True)
            sys.exit(130)
        except DiagnoseError as exc:
            click.echo(f"diagnose: {one_line(str(exc))}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("diagnose: interrupted", err=True)
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            if _interrupted(exc):  # Ctrl-C inside a class body's import wraps as RuntimeError (__set_name__)
                click.echo("diagnose: aborted", err=True)
                sys.exit(130)
            if os.environ.get("DIAGNOSE_DEBUG"):
                raise
            click.echo(
                f"diagnose: internal error: {type(exc).__name__}: {one_line(str(exc))} "
                "(set DIAGNOSE_DEBUG=1 for the traceback)",
                err=True,
            )
            sys.exit(EXIT_TOOL_FAILED)


def _interrupted(exc: BaseException) -> bool:
    """Whether a Ctrl-C is what an exception wraps (its cause or context chain)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def one_line(text: str) -> str:
    """Any message as the single stderr line the exit-code contract promises."""
    return " ".join(text.split())


def usage_line(exc: click.ClickException) -> str:
    """click's usage errors (missing option, bad value, no such command) in the same one-line form
    as every other error, with the help command to run instead of the usage block."""
    message = one_line(exc.format_message())
    if message[:1].isupper() and message[1:2].islower():
        message = message[0].lower() + message[1:]
    ctx = getattr(exc, "ctx", None)
    return f"{message.rstrip('.')} (see '{ctx.command_path} --help')" if ctx is not None else message


@click.group(cls=DiagnoseGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="diagnose")
def cli():
    """Explain why tensor-parallel LLM inference is slower than it should be.

    Every command collects facts (a live node, an Nsight Systems capture, a support ticket's
    attachments), compares them with what the hardware should deliver, and prints ranked
    findings with evidence and a fix.

    \b
    Examples:
      diagnose predict --model llama-3-70b --gpu h100-sxm --tp 1,2,4,8
      diagnose capture run.sqlite --model llama-3-70b --tp 8
      diagnose ticket ./ticket-4711/
      diagnose node --quick

    Exit codes: 0 no finding at or above --fail-on, 1 at least one such finding,
    2 bad usage or unreadable input, 3 a probe or the tool itself failed,
    130 stopped by Ctrl-C, 143 stopped by SIGTERM.
    """


for command in COMMANDS:
    if command.short_help is None and command.help:
        # the whole first sentence in `diagnose --help`, wrapped, rather than cut at 45 columns with "..."
        command.short_help = command.help.strip().split("\n\n")[0].replace("\n", " ")
    cli.add_command(command)
