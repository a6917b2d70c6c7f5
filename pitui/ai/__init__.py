"""The LLM layer: pi's message model and its streaming provider clients."""
