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
"""A table nobody has been connected to for this long, with no match on, is closed (``Table.abandoned``)."""
