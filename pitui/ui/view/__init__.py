"""The pure view model: ChatItems, ChatState, the reducer and its handlers, replay.

Nothing here imports Textual (``tests/test_layering.py`` checks it): the view model is
tested and benchmarked without a screen, and the widgets only render what it holds.
"""
