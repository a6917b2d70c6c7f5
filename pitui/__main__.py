"""`python -m pitui` runs the command-line entry point."""

from pitui.cli import main

raise SystemExit(main())
