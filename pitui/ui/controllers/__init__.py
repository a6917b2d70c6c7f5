"""The behaviour behind a key or a pane, each taking the app as a :class:`~pitui.ui.host.UiHost`."""
