"""The score keeper's sheets across the processes of a service: each change, once written
to the shared database (the sheets' authority: ``sheetstore.py``), is published with the
sheet at its version on one pub/sub channel (``keys.SHEETS``); every other process tells
its own live streams of that sheet (``Directory.keep_sheets``).  A body older than what a
stream has is not told (``keeper.Watcher``), so the order messages arrive in does not
matter; after the channel was lost, every watched sheet is read again from the database
once Redis confirms the subscription (nothing published after is missed, nothing before
is not in the database)."""

from __future__ import annotations

import logging
from typing import Any

import msgspec

from ligretto.server.cluster.directory import SheetWatchers
from ligretto.server.cluster.keys import SHEETS
from ligretto.server.cluster.lobbyfeed import listen_forever

log = logging.getLogger("ligretto.cluster")


class SheetWord(msgspec.Struct):
    """One change of a sheet, as one process published it: the sheet at ``version``."""

    process: str
    code: str
    version: int
    sheet: msgspec.Raw


_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(SheetWord).decode


class SheetFeed:
    """This process's side of the sheets' channel."""

    def __init__(self, redis: Any, process: str) -> None:
        self.redis = redis
        self.process = process
        self.sheets: SheetWatchers | None = None
        """The watchers told what the others publish (``None``: not yet wired)."""

    async def say(self, code: str, version: int, body: bytes) -> None:
        """Publish a change this process wrote (``body``: the sheet, encoded once)."""
        await self.redis.publish(SHEETS, _encode(SheetWord(self.process, code, version, msgspec.Raw(body))))

    def hear(self, data: bytes | str) -> None:
        """One message of the channel."""
        try:
            word = _decode(data)
        except msgspec.DecodeError:
            log.warning("not a sheet message on %s: ignored", SHEETS)
            return
        if word.process == self.process or self.sheets is None:
            return  # its own watchers were told when it wrote
        self.sheets.hear(word.code, word.version, bytes(word.sheet))

    def subscribed(self) -> None:
        if self.sheets is not None:
            self.sheets.resync()

    async def listen(self) -> None:
        """Hear the channel until cancelled (subscribed again after a lost connection)."""
        await listen_forever(self.redis, SHEETS, self.hear, self.subscribed)
