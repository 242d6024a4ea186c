import sys

from benchmarks._harness import main

sys.exit(main())
