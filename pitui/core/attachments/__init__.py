"""Files given to the model with a prompt: ``@path`` references and images.

:mod:`.files` turns paths into pi's attachment form (``<file name="…">`` blocks in the
text, image blocks beside it); :mod:`.references` finds ``@path`` tokens in what was
typed; :mod:`.file_index` lists a project's files for the composer's finder.
"""
