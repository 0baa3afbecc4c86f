"""``python -m cpmodel`` runs the command line."""

import sys

from cpmodel.cli import main

sys.exit(main())
