"""A table's figures of time, in one place (no imports: the command line reads them for
its help and defaults without loading the server).

The table (``Table``), the server's settings (``Settings``, ``ligretto serve --countdown``),
the store's restore, the tutorial and local play (``ligretto play``) all take these.
"""

COUNTDOWN_S = 3.0
"""Seconds from the deal to *go* (the round starts at one absolute server time)."""
DEFAULT_GRACE_S = 120.0
"""Seconds a person may be away during a match before a stand-in bot plays for them."""
MAX_GRACE_S = 3600.0
"""The longest grace period a host may set."""
ABANDONED_S = 3600.0
"""A table with no match on (lobby, over) whose seated people have all been away this long
is closed (``Table.abandoned``).  Spectators do not count."""
DESERTED_S = 600.0
"""A table with a match on (countdown, playing, scoring; its bots would play for nobody),
or with no person in any seat (nobody ever joined, or everyone left), that no seated person
has been connected to for this long is closed, its match recorded as abandoned."""
CATCH_UP_S = 15.0
"""After a restart, the longest a restored round waits for its seated people to come back
before its fresh countdown runs anyway (no bot or stand-in acts meanwhile)."""
READY_S = 30.0
"""On the score sheet, once the first person has said *Ready*, the longest the others may
take: then the next round is dealt for everyone (the table's ``ready_s``)."""
MIN_READY_S = 5.0
MAX_READY_S = 600.0
"""The bounds of the wait for *Ready* a table may set."""
