"""Keys typed while a screen is being opened wait for it, instead of reaching the pane
behind it.

Textual routes each key to the focused widget when the app takes it from its queue, but
a pane's key that opens a screen works through a message that reaches the app only after
it has routed the rest of a fast burst (``tmux send-keys C-b Up Enter Enter text``: the
second Enter and the text land in the tree, not in the chooser Enter opens). So a widget
says which of its keys open a screen (:class:`OpensScreens`); from such a key on, the
app holds the keys that follow (:class:`KeyGate`) until it has handled the widget's
message (the screen is open, or there was none to open), then routes them in order: to
the new screen's focus, or wherever they would have gone. A flow that opens its screen
only after some work (comparing files before the Restore files question) holds the keys
itself, from the key that started it (:meth:`KeyGate.hold`'s :class:`KeyHold`).
Bracketed pastes wait with the keys (a paste is one event, not keys): what is typed and
pasted in one burst arrives in the order it was typed.

The app also holds the keys from its start until the real composer replaces the stand-in
of the first frame (``PituiApp.get_default_screen``, ``MainScreen.mount_composer``).
"""

from __future__ import annotations

import bisect
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeAlias, runtime_checkable

from textual import events
from textual.message import Message

HOLD_AT_MOST_S = 1.0
"""A hold is let go after this long in any case: a message that never came must not
leave the keyboard dead."""
FLOW_HOLD_AT_MOST_S = 30.0
"""The limit of a hold that its flow always lets go (in a ``finally``): a pick that
loads a big session, a command that waits for the session to load. The keys after it
belong to what the flow opens, however long it takes to open; the limit only guards
against a flow that hangs."""
Held: TypeAlias = events.Key | events.Paste
"""What waits while keys are held: keys, and pastes between them."""


@runtime_checkable
class OpensScreens(Protocol):
    """A widget some of whose keys open a screen through a message to the app."""

    def opens_screen(self, event: events.Key) -> bool:
        """True when ``event`` will make this widget post a message that may open a
        screen (the app lets the keys after it go once it has handled that message)."""
        ...


@runtime_checkable
class Picks(Protocol):
    """A screen whose Enter picks a row and starts a flow that opens the next screen
    only after some work (the tree chooser, the /resume and /fork pickers). Enter
    picks once its list or field has handled it, after the app has routed the keys
    typed behind it to that widget, which goes away with the screen: so the app tells
    the screen as it routes the Enter, and the screen holds the keys itself (until its
    flow lets them go to what opens next, or has the focus then)."""

    def hold_keys_for_pick(self) -> None:
        """Enter is on its way: hold the keys after it, if it will pick a row."""
        ...


class _EnterField(Protocol):
    @property
    def app(self) -> object: ...

    enter_hold: KeyHold | None


class EnterHoldsKeys:
    """A :class:`Picks` screen whose field acts on Enter (a search that picks, a text
    that is saved): Textual runs the field's Enter only after the keys typed behind it
    reached the field (a fast ``name⏎more`` would save "namemore"), so they wait from the
    Enter on until the screen is gone (or :meth:`let_keys_go`), then go to what has the
    focus. Mixed into a screen."""

    enter_hold: KeyHold | None = None

    def hold_keys_for_pick(self: _EnterField) -> None:
        if self.enter_hold is None:
            self.enter_hold = hold_app_keys(self.app)

    def let_keys_go(self: _EnterField) -> None:
        """Enter picked nothing: the keys held since go on to the field."""
        held, self.enter_hold = self.enter_hold, None
        let_go(held)

    def on_unmount(self: _EnterField) -> None:
        held, self.enter_hold = self.enter_hold, None
        let_go(held)


class KeyGate:
    """The app's hold on keys while a screen is being opened (see the module's docstring).

    ``route`` sends a key on as the app would have; ``later`` runs a callback soon on the
    app's loop, ``after`` runs one after a delay (Textual's ``call_next`` and
    ``set_timer``).
    """

    def __init__(
        self,
        route: Callable[[Held], Awaitable[None]],
        later: Callable[[Callable[[], Awaitable[None]]], object],
        after: Callable[[float, Callable[[], None]], object],
    ) -> None:
        self._route = route
        self._later = later
        self._after = after
        self._holds = 0
        self._waiting: list[Held] = []
        self._generation = 0
        self._expiries = 0
        """Times the holds were let go by the time limit: a hold taken before one of
        them is gone, and its late release must not end a newer hold."""

    @property
    def holding(self) -> bool:
        """True while keys wait (held, or not yet sent on after a hold)."""
        return bool(self._holds or self._waiting)

    def hold(self, limit: float | None = HOLD_AT_MOST_S) -> KeyHold:
        """Hold the keys that come from now on, until :meth:`release` (or the returned
        hold's own ``release``, for a flow that opens its screen later), or ``limit``
        seconds at most (None: no limit, for a hold its taker always releases)."""
        self._holds += 1
        self._generation += 1
        generation = self._generation
        if limit is not None:
            self._after(limit, lambda: self._expire(generation))
        return KeyHold(self, self._expiries)

    def release(self) -> None:
        """One reason to hold is gone; the waiting keys go on once none is left."""
        if self._holds:
            self._holds -= 1
        if not self._holds and self._waiting:
            self._later(self._send_waiting)

    def take(self, event: Held) -> bool:
        """Keep ``event`` if keys are being held (True), else leave it to the caller.
        Kept in the order typed: a widget hands back keys it had been given before the
        hold (see :func:`hand_back`), after keys the app took since."""
        if not self.holding:
            return False
        bisect.insort(self._waiting, event, key=lambda key: key.time)
        return True

    def _expire(self, generation: int) -> None:
        if generation == self._generation and self._holds:
            self._holds = 0
            self._expiries += 1
            self._later(self._send_waiting)

    async def _send_waiting(self) -> None:
        """The waiting keys, in order, until one of them opens a screen again."""
        while self._waiting and not self._holds:
            await self._route(self._waiting.pop(0))


class HeldKeyDone(Message):
    """Follows a key that holds the keys after it (its binding opens a screen after some
    work) to the widget the key was routed to. Messages bubble in the order they came,
    so this reaches the app after the key has come back to it and its binding has run,
    or alone when a widget stopped the key (the composer runs a user's binding on a key
    it takes itself): either way the key is done and its hold ends there."""

    def __init__(self, hold: KeyHold) -> None:
        super().__init__()
        self.hold = hold


def hold_app_keys(app: object, limit: float = HOLD_AT_MOST_S) -> KeyHold | None:
    """A screen's hold on the keys typed from now on (its choice starts a flow that opens
    the next screen after some work), ``limit`` seconds at most; None in an app without
    a key gate (a test's)."""
    hold: Callable[[float], KeyHold] | None = getattr(app, "hold_keys", None)
    return hold(limit) if hold is not None else None


def hand_back(app: object, held: KeyHold | None, event: events.Key) -> bool:
    """A key a widget was given before it took ``held`` (they were routed to it
    before it had handled the key that took it): to the app's gate while ``held``
    holds (True), to be routed again once it is let go."""
    gate: KeyGate | None = getattr(app, "key_gate", None)
    if held is None or not held.holding or gate is None:
        return False
    again = events.Key(event.key, event.character)  # unrouted (this one is spent)
    again.time = event.time  # its place among the keys held
    return gate.take(again)


def let_go(held: KeyHold | None) -> None:
    """Release ``held``, if there is one."""
    if held is not None:
        held.release()


class KeyHold:
    """One hold of a :class:`KeyGate`, let go once (again: nothing)."""

    def __init__(self, gate: KeyGate, expiries: int) -> None:
        self._gate: KeyGate | None = gate
        self._expiries = expiries

    @property
    def holding(self) -> bool:
        """Not let go yet (neither by :meth:`release` nor by the time limit)."""
        gate = self._gate
        return gate is not None and gate._expiries == self._expiries

    def release(self) -> None:
        """Let the keys go (once this is the last hold); nothing if the time limit has
        let this hold go already."""
        gate, self._gate = self._gate, None
        if gate is not None and gate._expiries == self._expiries:
            gate.release()
