"""One module per command. Keep heavy imports inside the command functions."""

COMMANDS = []

from diagnose.commands.history import history  # noqa: E402

COMMANDS.append(history)
