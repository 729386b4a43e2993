"""`python -m optimize`: see optimize/cli.py."""

import program  # noqa: F401  (sets the offline env vars before anything imports litellm)
from optimize.cli import main
from optimize.sigterm import interrupt_on_sigterm
from program.base.command_line import exit_with

interrupt_on_sigterm()
exit_with(main())
