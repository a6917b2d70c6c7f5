"""Regenerate ``fixtures/gen-*.jsonl`` and ``fixtures/gen-oracle.json`` with pi's own code.

Usage: ``python -m tests.core.compaction.make_oracle <dir holding node_modules with
@mariozechner/pi-coding-agent 0.58.3>``. Needs node; the tests only read the results.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.core.compaction.sessions import generate, write

FIXTURES = Path(__file__).parent / "fixtures"
SEEDS = (1, 2, 3, 4, 5, 6)


def _plan(seed: int, entries: list[dict[str, object]], file: Path) -> dict[str, object]:
    rng = random.Random(seed * 7)
    ids = [str(e["id"]) for e in entries[1:]]
    leaves = [ids[-1], *rng.sample(ids, 2)]
    compactions = [{"leaf": leaf, "keep": keep} for leaf in leaves for keep in (20000, 1500, 1)]
    navigations = [{"from": rng.choice(ids), "to": rng.choice(ids)} for _ in range(8)]
    navigations.append({"from": ids[-1], "to": ids[0]})
    return {"file": str(file), "compactions": compactions, "navigations": navigations}


def main(pi_dir: str) -> None:
    plans = []
    for seed in SEEDS:
        entries = generate(seed)
        target = write(FIXTURES / f"gen-{seed}.jsonl", entries)
        plans.append(_plan(seed, entries, target))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(plans, handle)
    script = Path(__file__).with_name("make_oracle.mjs")
    node_modules = str(Path(pi_dir) / "node_modules")
    done = subprocess.run(
        ["node", str(script), node_modules, handle.name], check=True, capture_output=True
    )
    results = json.loads(done.stdout)
    for result in results:
        result["file"] = Path(result["file"]).name
    (FIXTURES / "gen-oracle.json").write_text(json.dumps(results, indent=0))


if __name__ == "__main__":
    main(sys.argv[1])
