"""Several ``ligretto serve`` processes as one service (``--redis``, docs/deploy.md): the
directory of which process owns which table (``directory.py``: today's single process,
``redisdirectory.py``: Redis leases), the lobby's public tables shared between the
processes (``lobbyfeed.py``), a client carried to its table's owner (``relay.py``) and
the tables of a dead process taken over (``failover.py``)."""
