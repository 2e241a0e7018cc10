"""``python -m bench``: see bench/run.py and the README's "Benchmarks" section."""

import sys

from bench.run import main

sys.exit(main())
