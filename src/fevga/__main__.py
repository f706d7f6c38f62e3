"""`python -m fevga` is the `fevga` command."""

import sys

from fevga.cli import main

sys.exit(main())
