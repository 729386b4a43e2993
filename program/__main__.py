"""`python -m program`: see program/cli.py."""

from program.cli import exit_with, main

exit_with(main())
