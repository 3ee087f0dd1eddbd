"""One module per command. Keep heavy imports inside the command functions."""

COMMANDS = []
