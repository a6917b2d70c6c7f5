"""The view model and reducer are plain Python: importing them must not load Textual."""

from __future__ import annotations

import subprocess
import sys


def test_reducer_does_not_import_textual() -> None:
    code = (
        "import sys, pitui.ui.view.reducer, pitui.ui.view.state, pitui.ui.view.events;"
        "assert 'textual' not in sys.modules, 'textual imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
