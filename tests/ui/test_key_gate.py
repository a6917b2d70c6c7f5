"""The key gate: keys after one that opens a screen wait, in order, until the app has
handled the message that opens it; a hold never lasts past its bound."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from textual import events

from pitui.ui.widgets.key_gate import Held, KeyGate


class _Loop:
    """Textual's call_next and set_timer, reduced to lists the test runs by hand."""

    def __init__(self) -> None:
        self.routed: list[str] = []
        self.soon: list[Callable[[], Awaitable[None]]] = []
        self.timers: list[Callable[[], None]] = []
        self.opens: set[str] = set()
        self.gate = KeyGate(self.route, self.soon.append, lambda _s, cb: self.timers.append(cb))

    async def route(self, event: Held) -> None:
        if isinstance(event, events.Paste):
            self.routed.append(f"paste:{event.text}")
            return
        if event.key in self.opens:
            self.gate.hold()
        self.routed.append(event.key)

    async def press(self, *keys: str) -> None:
        for key in keys:
            event = events.Key(key, None)
            if not self.gate.take(event):
                await self.route(event)

    async def paste(self, text: str) -> None:
        event = events.Paste(text)
        if not self.gate.take(event):
            await self.route(event)

    async def run_soon(self) -> None:
        while self.soon:
            await self.soon.pop(0)()


def test_keys_wait_for_the_screen_and_keep_their_order() -> None:
    async def scenario() -> None:
        loop = _Loop()
        loop.opens = {"enter"}
        await loop.press("up", "enter", "enter", "t", "x")
        assert loop.routed == ["up", "enter"]  # the rest wait for the chooser
        loop.gate.release()  # the app handled the message: the chooser is open
        await loop.press("y")  # typed while the waiting keys are being sent: after them
        await loop.run_soon()
        # The second Enter opened a screen again: what follows it waits once more.
        assert loop.routed == ["up", "enter", "enter"]
        loop.gate.release()
        await loop.run_soon()
        assert loop.routed == ["up", "enter", "enter", "t", "x", "y"]
        assert not loop.gate.holding

    asyncio.run(scenario())


def test_a_hold_without_its_message_ends_at_its_bound() -> None:
    async def scenario() -> None:
        loop = _Loop()
        loop.opens = {"enter"}
        await loop.press("enter", "a")
        assert loop.routed == ["enter"]
        loop.timers.pop()()  # no message came: the bound lets the keys go
        await loop.run_soon()
        assert loop.routed == ["enter", "a"] and not loop.gate.holding
        loop.gate.release()  # the late message changes nothing
        assert not loop.gate.holding

    asyncio.run(scenario())


def test_a_hold_let_go_by_its_bound_does_not_end_a_newer_one_when_released() -> None:
    """A flow that holds the keys longer than the bound (a slow comparison) releases its
    hold late: a hold taken since (Alt+← waiting for its question) still holds."""

    async def scenario() -> None:
        loop = _Loop()
        slow = loop.gate.hold()
        loop.timers.pop()()  # the bound let the slow flow's hold go
        newer = loop.gate.hold()
        slow.release()  # late: nothing
        await loop.press("y")
        assert loop.routed == [] and loop.gate.holding  # still waiting for the question
        newer.release()
        await loop.run_soon()
        assert loop.routed == ["y"] and not loop.gate.holding

    asyncio.run(scenario())


def test_a_paste_waits_in_line_with_the_keys_around_it() -> None:
    async def scenario() -> None:
        loop = _Loop()
        loop.opens = {"enter"}
        await loop.press("enter", "a")
        await loop.paste("pasted")
        await loop.press("b")
        assert loop.routed == ["enter"]
        loop.gate.release()
        await loop.run_soon()
        assert loop.routed == ["enter", "a", "paste:pasted", "b"]
        await loop.paste("later")  # nothing held: straight on
        assert loop.routed[-1] == "paste:later"

    asyncio.run(scenario())


def test_a_hold_without_a_limit_lasts_until_released() -> None:
    """The start-up hold (keys typed before the real composer is mounted) has no time
    limit: its taker always lets it go, and a slow start must not lose keys to the
    composer's stand-in."""

    async def scenario() -> None:
        loop = _Loop()
        start = loop.gate.hold(limit=None)
        assert loop.timers == []
        await loop.press("h", "i")
        assert loop.routed == [] and loop.gate.holding
        start.release()
        await loop.run_soon()
        assert loop.routed == ["h", "i"] and not loop.gate.holding

    asyncio.run(scenario())
