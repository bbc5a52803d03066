"""`python -m errdex` is the `errdex` command."""

import sys

from errdex.serve.cli import main

sys.exit(main())
