"""The one action table and the commands it runs (one module per family of commands)."""
