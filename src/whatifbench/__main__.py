"""Allow ``python -m whatifbench``."""

from whatifbench.cli.main import main

raise SystemExit(main())
