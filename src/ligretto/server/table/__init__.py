"""The authority of one table and its parts (seats, plays, judging, bots, resume, host commands,
messages, record, clock, tutorial, dispatch): no web framework, database driver or Redis."""
