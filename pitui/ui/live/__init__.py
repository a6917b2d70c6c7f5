"""The live session: the one handle on it, the bridge its events cross, the start-up snapshot."""
