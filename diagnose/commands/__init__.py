"""One module per command. Keep heavy imports inside the command functions."""

from diagnose.commands.capture import capture
from diagnose.commands.compare import compare
from diagnose.commands.fleet import fleet
from diagnose.commands.history import history
from diagnose.commands.node import node
from diagnose.commands.plan import plan
from diagnose.commands.predict import predict
from diagnose.commands.rule_list import rule_list
from diagnose.commands.scaling import scaling
from diagnose.commands.ticket import ticket

COMMANDS = [history, compare, fleet, node, capture, predict, ticket, scaling, plan, rule_list]
