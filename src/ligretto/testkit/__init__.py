"""What the tests and the harness (``ligretto loadtest``, ``ligretto stress``) share, and
the product never imports: a real ``ligretto serve`` process (``serverprocess.py``) and the
model of hidden cards that every message is scanned against (``scans.py``)."""
