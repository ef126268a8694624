"""Several ``ligretto serve`` processes as one service (``--redis``, docs/deploy.md): the
directory of which process owns which table (``directory.py``: today's single process,
``redisdirectory.py``: Redis leases), the lobby's public tables shared between the
processes (``lobbyfeed.py``), each change of a score keeper's sheet told to every
process's live streams (``sheetfeed.py``), a client carried to its table's owner (``relay.py``) and
the tables of a dead process taken over (``failover.py``)."""
