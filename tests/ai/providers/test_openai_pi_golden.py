"""Request conversion and stream reading checked against pi itself.

``data/pi058_openai_convert.json`` holds what pi-ai 0.58.3 (npm) produced with its own
``convertResponsesMessages`` / ``convertMessages`` for one awkward history (thinking and
text from the same and other models, ``call|item`` ids, Anthropic ids, images in user
messages and tool results, an errored turn, a lone surrogate) and several target models.
``data/pi058_openai_streams.json`` holds the events and final message pi-ai 0.58.3
produced streaming each fixture (same contexts as the fixture tests; cost and timestamp
left out).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pitui.ai.providers.openai_compat import resolve_compat
from pitui.ai.providers.openai_completions import stream as completions_stream
from pitui.ai.providers.openai_completions_request import convert_messages
from pitui.ai.providers.openai_responses import stream as responses_stream
from pitui.ai.providers.openai_responses_request import convert_input
from pitui.ai.types import Context, Model
from tests.ai.providers import test_openai_completions as completions_cases
from tests.ai.providers import test_openai_responses as responses_cases
from tests.ai.providers.harness import run_replay
from tests.replay_server import ReplayServer, Reply

GOLDEN: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "pi058_openai_convert.json").read_text()
)


@pytest.mark.parametrize(
    "case", GOLDEN["cases"], ids=lambda c: f"{c['model']['api']}-{c['model']['id']}"
)
def test_conversion_matches_pi(case: dict[str, Any]) -> None:
    context = Context.load(GOLDEN["context"])
    model = Model.load(case["model"])
    if model.api == "openai-responses":
        sent = convert_input(model, context)
    else:
        sent = convert_messages(model, context, resolve_compat(model))
    assert sent == case["output"]


# --------------------------------------------------------------------------- streams

STREAMS: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "pi058_openai_streams.json").read_text()
)["streams"]


def _event_view(event: Any) -> dict[str, Any]:
    view: dict[str, Any] = {"type": event.type}
    index = getattr(event, "content_index", None)
    if index is not None:
        view["contentIndex"] = index
    for key in ("delta", "content"):
        value = getattr(event, key, None)
        if isinstance(value, str):
            view[key] = value
    return view


def _message_view(message: Any) -> dict[str, Any]:
    data: dict[str, Any] = message.to_json_dict()
    data.pop("timestamp")
    data["usage"].pop("cost")
    return data


@pytest.mark.parametrize("name", sorted(STREAMS))
async def test_stream_matches_pi(replay_server: ReplayServer, name: str) -> None:
    if name in completions_cases.CASES:
        case: Any = completions_cases.CASES[name]
        model, fn = case.model, completions_stream
    else:
        case = responses_cases.CASES[name]
        model, fn = responses_cases.gpt5(), responses_stream
    reply = Reply.sse_file(f"{name}.sse")
    run = await run_replay(replay_server, fn, model, case.context, case.options, reply)
    expected = STREAMS[name]
    assert [_event_view(e) for e in run.events] == expected["events"]
    assert _message_view(run.message) == expected["message"]
