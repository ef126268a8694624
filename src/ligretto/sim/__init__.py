"""The simulator: bots play rounds in virtual time, thousands a second."""

from ligretto.sim.table import RoundResult, simulate_round

__all__ = ["RoundResult", "simulate_round"]
