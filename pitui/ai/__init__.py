"""The LLM layer: pi's message model and streaming clients over httpx."""
