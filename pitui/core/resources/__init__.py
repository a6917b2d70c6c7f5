"""What a user or a project adds to pitui as files: skills and prompt templates.

Both are Markdown files with YAML frontmatter, found in pitui's own folders, in pi's
(so a pi user's files work unchanged) and, for skills, in the Agent Skills folders.
Project-level ones are instructions from a repository you may not have written: they
load only after project trust (:mod:`pitui.core.trust`). :mod:`.loader` ties it together.
"""
