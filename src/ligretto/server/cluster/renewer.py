"""The leases and the heartbeat of this process, renewed from a thread of its own.

A busy or briefly stalled event loop (a slow database commit, a long garbage collection)
must not lose a process its tables: the service would take them over while their owner
still plays them, and every client would be dropped and restored for nothing.  So the
renewals (one Lua script for every lease, then the heartbeat) run on a thread with its own
Redis connection, every ``RENEW_S``, for as long as the event loop shows it is alive
(:meth:`Renewer.seen`, at least every ``STALL_S``: a task of the loop's that awaits nothing
else, so a Redis that hangs holds the loop's other Redis work, never the sign that the loop
is alive).  A loop stuck longer than that lets its leases run out, as a dead process does.
Leases found lost (another process holds them) are handed to the loop (``lost``)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

import redis

from ligretto.server.cluster import keys
from ligretto.server.ops import logs, metrics

log = logging.getLogger("ligretto.cluster")

STALL_S = 5.0
"""An event loop not seen for this long is stuck: its leases are no longer renewed."""

# Renew the leases still ours, take back those nobody holds (Redis restarted empty, or
# this process stalled and nobody took them meanwhile); answer the others' places.
RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  local owner = redis.call('GET', key)
  if owner == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  elseif not owner then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
"""


class Renewer:
    """Renews the leases of ``held()`` and the heartbeat ``beat()`` of process ``me``."""

    def __init__(
        self,
        url: str,
        me: str,
        lease_ms: int,
        *,
        held: Callable[[], list[str]],
        beat: Callable[[], str],
        lost: Callable[[list[str]], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = redis.Redis.from_url(url, decode_responses=True)
        self.me = me
        self.lease_ms = lease_ms
        self.held = held
        self.beat = beat
        self.lost = lost
        self.clock = clock
        self.seen_at = clock()
        self._script = self.client.register_script(RENEW)
        self._halt = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pulse: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._run, name="ligretto-leases", daemon=True)

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.seen()
        self._pulse = self._loop.create_task(self._show_alive())
        self._thread.start()

    async def _show_alive(self) -> None:
        """The loop's sign of life, every renewal (it awaits nothing but the time)."""
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            self.seen()

    def seen(self) -> None:
        """The event loop is alive (called from it)."""
        self.seen_at = self.clock()

    def alive(self) -> bool:
        """The event loop was seen within ``STALL_S``: its leases are to be renewed."""
        return self.clock() - self.seen_at <= STALL_S

    def renew_once(self) -> list[str]:
        """Renew every lease held and the heartbeat; the codes whose lease another holds."""
        # The heartbeat first, so that it runs out before the leases: a sweep never counts a
        # dead process among the live ones once its tables are orphans (the fair shares).
        with self.client.pipeline(transaction=False) as pipe:
            pipe.set(keys.process(self.me), self.beat(), px=self.lease_ms)
            pipe.sadd(keys.PROCESSES, self.me)
            pipe.execute()
        codes = sorted(self.held())
        lost: list[str] = []
        if codes:
            places = self._script(keys=[keys.table(c) for c in codes], args=[self.me, self.lease_ms])
            lost = [codes[int(place) - 1] for place in places]
        return lost

    def _run(self) -> None:
        renew_s = self.lease_ms / 3000
        stuck = False
        while not self._halt.wait(renew_s):
            if not self.alive():
                if not stuck:
                    log.warning("the event loop is stuck: the leases of process %s run out", self.me)
                stuck = True
                continue
            stuck = False
            try:
                lost = self.renew_once()
            except redis.RedisError as error:  # Redis away for a moment: the leases run until it is back
                metrics.BACKEND_ERRORS.labels("redis").inc()
                logs.BACKENDS.log(log, "redis", logging.WARNING, "could not renew with Redis (%s): trying again", error)
                continue
            if lost and self._loop is not None and not self._halt.is_set():
                self._loop.call_soon_threadsafe(self.lost, lost)

    def halt(self) -> None:
        """Renew no more (from the event loop: returns at once)."""
        self._halt.set()
        if self._pulse is not None:
            self._pulse.cancel()

    def stop(self) -> None:
        """Renew no more, and wait for a renewal under way (before the leases are released)."""
        self.halt()
        if self._thread.is_alive():
            self._thread.join(10)
        self.client.close()
