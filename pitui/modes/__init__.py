"""Non-interactive modes: print and JSON event stream, plus the session inspector."""
