"""`python -m learn.guard --rules FILE`: learn's check, run as a PreToolUse hook."""

import sys

from learn.guard.hook import main

sys.exit(main())
