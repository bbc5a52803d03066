"""`python -m errdex` is the `errdex` command."""

import sys

from errdex.cli import main

sys.exit(main())
