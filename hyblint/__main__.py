import sys

from hyblint.cli import main

sys.exit(main())
