"""ligretto: the real-time card game Ligretto — rules engine, bots, simulator, server and clients."""

__version__ = "0.1.0"
