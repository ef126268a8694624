"""The leases and the heartbeat of this process, renewed from a thread of its own.

A busy or briefly stalled event loop (a slow database commit, a long garbage collection)
must not lose a process its tables: the service would take them over while their owner
still plays them, and every client would be dropped and restored for nothing.  So the
renewals (one Lua script for every lease, then the heartbeat) run on a thread with its own
Redis connection, every ``RENEW_S``, for as long as the event loop shows it is alive
(:meth:`Renewer.seen`, at least every ``STALL_S``: a task of the loop's that awaits nothing
else, so a Redis that hangs holds the loop's other Redis work, never the sign that the loop
is alive).  A loop stuck longer than that lets its leases run out, as a dead process does.
Leases found lost (another process holds them) are handed to the loop (``lost``).  The
stored tables are offered again to the service (``keys.TABLES``, a Redis that restarted
empty learns them so) in the same script, each only with its lease: no other process can
find one of them there without an owner and take it over from a live one."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Collection

import redis

from ligretto.server.cluster import keys
from ligretto.server.ops import logs, metrics

log = logging.getLogger("ligretto.cluster")

STALL_S = 5.0
"""An event loop not seen for this long is stuck: its leases are no longer renewed."""

# One round trip, so that a renewal sent while Redis hangs is done the moment it resumes
# (its clock ran on: every lease has run out), in the same turn of Redis's loop as every
# other request that waited (in whatever order its poll lists their sockets, not always
# the order they came in): another process that asked who owns a table meanwhile may hear
# "nobody", but its take-over (SET NX) is a round trip after that answer, so it finds the
# lease back and the table is not taken from a live owner.  The
# heartbeat (first: it runs out before the leases, so a sweep never counts a dead process
# among the live ones once its tables are orphans), then each lease still ours renewed,
# one nobody holds taken back (Redis restarted empty, or this process stalled and nobody
# took it meanwhile) and its table offered again if it is stored; the places of those
# another process holds are the answer (1, 2, ...).
# KEYS: the set of stored tables, the set of processes, this process's heartbeat, then its
# leases; ARGV: its id, the lease (ms), its heartbeat, then for each lease its table's code
# if that is stored, else ''.
RENEW = """
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
local lost = {}
for i = 4, #KEYS do
  local owner = redis.call('GET', KEYS[i])
  if owner and owner ~= ARGV[1] then
    table.insert(lost, i - 3)
  else
    if owner then
      redis.call('PEXPIRE', KEYS[i], ARGV[2])
    else
      redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
    end
    if ARGV[i] ~= '' then
      redis.call('SADD', KEYS[1], ARGV[i])
    end
  end
end
return lost
"""


class Renewer:
    """Renews the leases of ``held()`` (offering those of ``stored()`` again) and the
    heartbeat ``beat()`` of process ``me``."""

    def __init__(
        self,
        url: str,
        me: str,
        lease_ms: int,
        *,
        held: Callable[[], list[str]],
        stored: Callable[[], Collection[str]] = tuple,
        beat: Callable[[], str],
        lost: Callable[[list[str]], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = redis.Redis.from_url(url, decode_responses=True)
        self.me = me
        self.lease_ms = lease_ms
        self.held = held
        self.stored = stored
        """Which of them are stored tables (not tutorials): offered again with their leases."""
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
        """Renew the heartbeat and every lease held (one script: :data:`RENEW`); the codes
        whose lease another holds."""
        codes = sorted(self.held())
        stored = self.stored()
        places = self._script(
            keys=[keys.TABLES, keys.PROCESSES, keys.process(self.me), *(keys.table(c) for c in codes)],
            args=[self.me, self.lease_ms, self.beat(), *(code if code in stored else "" for code in codes)],
        )
        return [codes[int(place) - 1] for place in places]

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
