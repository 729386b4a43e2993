"""`python -m program`: see program/cli.py."""

from program.base.command_line import exit_with
from program.cli import main

exit_with(main())
