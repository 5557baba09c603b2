import sys

from evals.run import main

sys.exit(main())
