"""Messages to clients held back until the store has committed what they tell.

Tables send as they decide (``Table.act`` acknowledges and broadcasts at once), but
the store writes in batches, once per turn of the event loop (on SQLite at most one every
``writer.COMMIT_EVERY_S``, the outbox's deliveries with them).  So no client learns of
something a crash could still undo, every message goes through one :class:`Outbox`:
it keeps the messages of the current turn and, on the loop's next turn, has the store
commit them (``Store.after_commit``: at once on SQLite, on the writer's thread on
PostgreSQL, ``writer``), then hands each message to its connection, in the order they
were posted.

A recipient is handed its messages of the turn one by one (:meth:`Recipient.deliver`),
then told that the turn's are all there (:meth:`Recipient.flush`): a connection writes
them to its socket together, one write for an action's ack and events to its sender (each
write is a system call: the largest single cost of the server at 1,000 tables, issue 31).
A message that cannot go at once, because the client is slow to read, goes through
:func:`start_eagerly`: an ASGI send completes without waiting unless the client is slow
to read, and only then does a task take over.  (A task and a queue per message cost a
fifth of the server's time at 500 tables.)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from ligretto.server.db.writer import Pace


class Recipient(Protocol):
    """Where the outbox hands messages: a client's connection."""

    def deliver(self, text: str) -> None:
        """One encoded message (``""``: the close), in the order posted."""

    def flush(self) -> None:
        """The turn's messages have all been delivered: put them on the way out."""


AfterCommit = Callable[[Callable[[], None]], None]
"""Runs its argument once what was written before is committed (``Store.after_commit``)."""


class Outbox:
    """One per server: holds messages until ``after_commit`` (the store's) lets them go; at
    most once every ``every_s`` (the store's ``commit_every_s``: each delivery commits)."""

    def __init__(self, after_commit: AfterCommit | None = None, every_s: float = 0.0) -> None:
        self._after_commit = after_commit
        self._held: list[tuple[Recipient, str]] = []
        self._pace = Pace(every_s)

    @property
    def holding(self) -> bool:
        """Messages are waiting for their turn's delivery."""
        return bool(self._held)

    def post(self, recipient: Recipient, message: str) -> None:
        """Deliver ``message`` to ``recipient`` once what happened before it is committed."""
        if not self._held:
            self._pace.call(asyncio.get_running_loop(), self.flush)
        self._held.append((recipient, message))

    def flush(self) -> None:
        """Deliver everything held, in order, once the store has committed what came before
        it (delivered even if the commit fails: the error is logged, the game goes on in
        memory)."""
        self._pace.ran()
        held, self._held = self._held, []

        def deliver_held() -> None:
            for recipient, message in held:
                recipient.deliver(message)
            for recipient in dict.fromkeys(recipient for recipient, _ in held):
                recipient.flush()

        if self._after_commit is None:
            deliver_held()
        else:
            self._after_commit(deliver_held)


def start_eagerly(coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """Run ``coroutine`` now, up to its first wait; ``None`` if it finished there (its
    exception, if any, is raised here), else the task that runs the rest of it.

    What Python 3.12 calls an eager task: a coroutine that does not need to wait does
    not go through the event loop's queue."""
    try:
        waiting_for = coroutine.send(None)
    except StopIteration:
        return None
    return asyncio.get_running_loop().create_task(_resume(coroutine, waiting_for))


async def _resume(coroutine: Coroutine[Any, Any, None], waiting_for: Any) -> None:
    """Drive ``coroutine`` from where :func:`start_eagerly` left it, as a task would."""
    while True:
        try:
            if waiting_for is None:  # a bare yield: give the loop one turn
                await asyncio.sleep(0)
            else:
                # The coroutine yielded this future to its driver, marked "blocking"; as a
                # task does, take the mark off before waiting for it ourselves.
                waiting_for._asyncio_future_blocking = False
                await waiting_for
        except BaseException as error:  # cancellation too: the coroutine decides
            try:
                waiting_for = coroutine.throw(error)
            except StopIteration:
                return
            continue
        try:
            waiting_for = coroutine.send(None)
        except StopIteration:
            return
