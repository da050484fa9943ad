import sys

from dewee.cli import main

sys.exit(main())
