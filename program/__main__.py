"""`python -m program`: see program/cli.py."""

import sys

from program.cli import main

sys.exit(main())
