"""One module per command. Keep heavy imports inside the command functions."""

COMMANDS = []

from diagnose.commands.history import history  # noqa: E402

COMMANDS.append(history)

from diagnose.commands.compare import compare  # noqa: E402
from diagnose.commands.fleet import fleet  # noqa: E402

COMMANDS += [compare, fleet]

from diagnose.commands.node import node  # noqa: E402

COMMANDS.append(node)

from diagnose.commands.capture import capture  # noqa: E402

COMMANDS.append(capture)

from diagnose.commands.predict import predict  # noqa: E402

COMMANDS.append(predict)

from diagnose.commands.ticket import ticket  # noqa: E402

COMMANDS.append(ticket)

from diagnose.commands.scaling import scaling  # noqa: E402

COMMANDS.append(scaling)

from diagnose.commands.plan import plan  # noqa: E402

COMMANDS.append(plan)

from diagnose.commands.rule_list import rule_list  # noqa: E402

COMMANDS.append(rule_list)
