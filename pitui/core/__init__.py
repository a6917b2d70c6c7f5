"""pi's coding-agent core: custom messages, sessions, tools, compaction, AgentSession."""
