"""Models and thinking levels: ``/model``, ``/thinking``, the model picker, cycling keys.

Worded as pi words them (PI_SPEC §9.1). Each handler takes the :class:`UiHost` and the
argument text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pitui.ui.host import require_session, wait_for_session
from pitui.ui.live.session import NO_SESSION

if TYPE_CHECKING:
    # Types only: the message models load with the session, after the first frame.
    from pitui.ai.types import Model
    from pitui.ui.host import UiHost
    from pitui.ui.screens.models import ModelPicker


async def select_model(host: UiHost, arg: str) -> None:
    """``/model [search]`` and Ctrl+L: an exact ``provider/id`` or id switches; else the
    picker, searching ``arg``."""
    wait_for_session(host)
    live = host.live
    session = live.facade if live is not None else None
    model = exact_model_match(arg, session.registry.all()) if session and arg else None
    if model is not None:
        await switch_model(host, model)
    else:
        open_model_picker(host, arg)


def exact_model_match(reference: str, models: list[Model]) -> Model | None:
    """pi's exact match: ``provider/id`` (case-insensitive) or an unambiguous bare id."""
    ref = reference.strip().lower()
    if not ref:
        return None
    canonical = [m for m in models if f"{m.provider}/{m.id}".lower() == ref]
    if canonical:
        return canonical[0] if len(canonical) == 1 else None
    by_id = [m for m in models if m.id.lower() == ref]
    return by_id[0] if len(by_id) == 1 else None


def open_model_picker(host: UiHost, search: str = "") -> None:
    """Push the model picker; switching happens when it closes with a choice."""
    from pitui.ui.screens.models import ModelPicker  # a screen: loaded when used

    wait_for_session(host)
    live = host.live
    session = live.facade if live is not None else None
    if session is None:
        host.run_worker(host.notice(NO_SESSION, "warning"))
        return

    async def chosen(model: Model | None) -> None:
        if model is not None:
            await host.guarded(switch_model(host, model))

    picker = ModelPicker(session.registry, session.model, search)
    host.push_screen(picker, chosen)
    host.run_worker(_detect_ollama(picker), group="ollama", exit_on_error=False)


async def _detect_ollama(picker: ModelPicker) -> None:
    """Add a local Ollama's models to the open picker (usable now, no key needed)."""
    if await picker.registry.refresh_ollama() and picker.is_attached:
        picker.reload()


async def switch_model(host: UiHost, model: Model) -> None:
    """Make ``model`` the session's model (a ``model_change`` entry) and say so."""
    session = require_session(host)
    await session.set_model(model)
    host.refresh_status()
    await host.notice(f"Model: {model.id}")
    if session.registry.usable_reason(model) is None:
        keys = host.keys.keys_text("selectModel", unbound="/model")
        await host.notice(
            f"No API key for {model.provider}: add one, or pick another model with {keys}",
            "warning",
        )


async def cycle_model(host: UiHost, step: int) -> None:
    """Next (or previous) usable model after the current one, as pi's Ctrl+P."""
    session = require_session(host)
    models = session.registry.available()
    current = session.model
    keys = [(m.provider, m.id) for m in models]
    here = (current.provider, current.id) if current else None
    if len(models) < 2 and (here is None or here in keys):
        await host.notice("Only one model available")
        return
    index = keys.index(here) if here in keys else -1 if step > 0 else 0
    model = models[(index + step) % len(models)]
    await session.set_model(model)
    host.refresh_status()
    level = session.thinking_level
    thinking = f" (thinking: {level})" if model.reasoning and level != "off" else ""
    await host.notice(f"Switched to {model.name or model.id}{thinking}")


async def cycle_forward(host: UiHost, _arg: str) -> None:
    """pi's cycleModelForward."""
    await cycle_model(host, 1)


async def cycle_backward(host: UiHost, _arg: str) -> None:
    """pi's cycleModelBackward."""
    await cycle_model(host, -1)


async def thinking(host: UiHost, arg: str) -> None:
    """``/thinking [level]``: set the level, or show it and the choices."""
    session = require_session(host)
    available = session.available_thinking_levels()
    if not arg:
        choices = ", ".join(available)
        await host.notice(f"Thinking level: {session.thinking_level} (available: {choices})")
        return
    from pitui.ai.types import THINKING_LEVELS

    level = next((lvl for lvl in THINKING_LEVELS if lvl == arg.lower()), None)
    if level is None:
        choices = ", ".join(THINKING_LEVELS)
        await host.notice(f'Invalid thinking level "{arg}". Use one of: {choices}', "warning")
        return
    if level != "off" and available == ["off"]:
        await host.notice("Current model does not support thinking", "warning")
        return
    await session.set_thinking_level(level)
    host.refresh_status()
    await host.notice(f"Thinking level: {session.thinking_level}")


def thinking_levels(host: UiHost, _arg: str) -> list[str]:
    """Argument completions for ``/thinking``."""
    from pitui.ai.types import THINKING_LEVELS

    live = host.live
    session = live.facade if live is not None else None
    return list(session.available_thinking_levels()) if session else list(THINKING_LEVELS)


async def cycle_thinking(host: UiHost, _arg: str) -> None:
    """Shift+Tab: the next level the model accepts (the status bar follows its event)."""
    wait_for_session(host)
    live = host.live
    if live is not None and live.facade is not None:
        await live.facade.cycle_thinking_level()
