"""The agent layer: AgentMessage, tools, events and the agent loop."""
