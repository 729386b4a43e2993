"""`python -m optimize`: see optimize/cli.py."""

import sys

import program  # noqa: F401  (sets the offline env vars before anything imports litellm)
from optimize.cli import main

sys.exit(main())
