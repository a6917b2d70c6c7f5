"""A subprocess for the crash tests: imports pitui once, then forks one worker per request.

Forking a warm process makes each of the 50+ kill runs cost milliseconds instead of a
Python start. Protocol on stdin, one line per request: ``append PATH`` or ``hold PATH``.
The zygote answers the worker's pid, then ``done`` when the worker has died.
Workers acknowledge progress by appending lines to ``PATH.acks`` (unbuffered writes,
so whatever was acknowledged before a SIGKILL is in that file).
"""

from __future__ import annotations

import asyncio
import os
import random
import sys

from pitui.ai.types import AssistantMessage, TextContent, UserMessage
from pitui.core.session.store import SessionStore


def _ack(fd: int, text: str) -> None:
    os.write(fd, (text + "\n").encode())


async def _append_forever(path: str, fd: int) -> None:
    store = await SessionStore.open(path)
    rng = random.Random(os.getpid())
    first = await store.append_message(UserMessage(content="start", timestamp=1))
    reply = AssistantMessage(api="a", provider="p", model="m", timestamp=2)
    second = await store.append_message(reply)  # the file is written from here on (as pi)
    _ack(fd, first)
    _ack(fd, second)
    while True:
        size = rng.choice([10, 200, 5_000, 150_000])
        text = "".join(rng.choice('ab\n"é✓') for _ in range(size))
        message = AssistantMessage(
            content=[TextContent(text=text)], api="a", provider="p", model="m"
        )
        _ack(fd, await store.append_message(message))


async def _hold(path: str, fd: int) -> None:
    store = await SessionStore.open(path)
    _ack(fd, "held")
    await asyncio.sleep(3600)
    await store.close()


def _worker(command: str, path: str) -> None:
    fd = os.open(path + ".acks", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    body = _append_forever if command == "append" else _hold
    asyncio.run(body(path, fd))


def main() -> None:
    for line in sys.stdin:
        command, path = line.split(maxsplit=1)
        pid = os.fork()
        if pid == 0:
            try:
                _worker(command, path.strip())
            finally:
                os._exit(0)
        print(pid, flush=True)
        os.waitpid(pid, 0)
        print("done", flush=True)


if __name__ == "__main__":
    main()
