"""Operating a server: what `/metrics` exports, the log, the garbage collector's pauses."""
