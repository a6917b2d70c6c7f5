"""pitui.ai.providers."""
