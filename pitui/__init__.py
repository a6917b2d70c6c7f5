"""pitui: a full-screen terminal client for LLM coding agents."""

__version__ = "0.1.0"
