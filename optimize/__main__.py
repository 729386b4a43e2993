"""`python -m optimize`: see optimize/cli.py."""

import program  # noqa: F401  (sets the offline env vars before anything imports litellm)
from optimize.cli import main
from program.cli import exit_with

exit_with(main())
