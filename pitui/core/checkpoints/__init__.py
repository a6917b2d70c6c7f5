"""Checkpoints: the project's files at every turn, in a private shadow git store.

``engine`` snapshots and restores one project folder; ``points`` finds which checkpoint
an entry of the session tree stands for; ``session_files`` records checkpoints in the
session file and compares or restores a point's files.
"""
