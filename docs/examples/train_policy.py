"""Train a learner for Ligretto in minutes: a masked linear-softmax policy, REINFORCE.

One learner (seat 0 of ``ligretto.rl.single_agent_env``) against bots.  The policy scores
every action with a linear function of the seat's public features (each scaled to 0-1 by
the layout's highs, plus a constant) and a weight shared by every action of its sort (a
play from the row, a turn, ...); the actions the mask does not allow get no probability.
After each batch of rounds, REINFORCE moves the weights along ``(score - batch mean) /
batch std * grad log pi(action | features)`` of every decision of each round, with Adam.
Before training the weights are 0: the uniformly random masked policy.  The learned policy
and that random one then play the same held-out rounds (seeds 0, 1, 2, ...; the training
rounds are those of match ``--seed``: ``round_seed(seed, 1)``, ``round_seed(seed, 2)``,
..., 63-bit numbers), and their mean scores are printed with 95 % confidence intervals,
beside a rule written by hand's (play whenever a play is allowed, else turn the hand).

    python docs/examples/train_policy.py                       # 2 players, greedy:casual
    python docs/examples/train_policy.py --players 4 --opponents smart:expert --rounds 6000

Only numpy and the ``rl`` extra (``pip install 'ligretto[rl]'``); docs/simulator.md,
"Training a learner", has the figures measured.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import ligretto.rl
from ligretto.engine.actions import Play
from ligretto.engine.scoring import round_seed


def kind(action: object) -> str:
    """What sort of action a number is, for the weights its sort shares: a play from the
    row, the stack or the discard (to a pile or a new one), a placement, a turn, ..."""
    if isinstance(action, Play):
        return f"play {action.source.name.lower()}" + (" new" if action.pile is None else "")
    return "wait" if action is None else type(action).__name__.lower()


class Policy:
    """Masked linear softmax: the logit of action ``a`` is ``W[a] @ x + k[kind(a)]``, with
    ``x`` the features scaled by their highs and a constant; all zero is the random masked
    policy.  ``k``, one weight a sort of action shared by every action of that sort, lets
    what is learnt of one play count for every play."""

    def __init__(self, env: ligretto.rl.SingleAgentEnv) -> None:
        layout = env.table.layout
        self.scale = 1.0 / np.maximum(np.array(layout.highs()), 1.0)
        kinds = [kind(action) for action in layout.actions(0)]
        names = sorted(set(kinds))
        self.kinds = np.eye(len(names))[[names.index(k) for k in kinds]]
        """One row per action: its sort, one-hot."""
        self.weights = np.zeros((len(kinds), len(self.scale) + 1 + len(names)))
        """``W`` and, in the first row's last columns, ``k`` (the other rows' stay 0)."""

    def inputs(self, features: np.ndarray) -> np.ndarray:
        return np.append(features * self.scale, 1.0)

    def logits(self, x: np.ndarray) -> np.ndarray:
        width = len(x)
        logits: np.ndarray = self.weights[:, :width] @ x + self.kinds @ self.weights[0, width:]
        return logits

    def probabilities(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = np.where(mask, self.logits(x), -np.inf)
        odds = np.exp(logits - logits.max())
        probabilities: np.ndarray = odds / odds.sum()
        return probabilities

    def gradient(self, x: np.ndarray, surprise: np.ndarray) -> np.ndarray:
        """The gradient of the summed log pi of a round's decisions: ``x`` one row a
        decision, ``surprise`` one-hot(action) - pi."""
        width = x.shape[1]
        gradient = np.zeros_like(self.weights)
        gradient[:, :width] = np.einsum("ta,tf->af", surprise, x)  # (numpy's own loop: no BLAS threads)
        gradient[0, width:] = (surprise @ self.kinds).sum(axis=0)
        return gradient


@dataclass(slots=True)
class Played:
    """One round played by a policy: its score, the bots' mean score, and what the gradient
    of log pi needs (the inputs, and one-hot(action) - pi at each decision)."""

    score: float
    bots: float
    inputs: np.ndarray
    surprise: np.ndarray


def play(env: ligretto.rl.SingleAgentEnv, policy: Policy, seed: int, rng: np.random.Generator) -> Played:
    observation, _ = env.reset(seed=seed)
    inputs: list[np.ndarray] = []
    surprise: list[np.ndarray] = []
    done, reward, info = False, 0.0, dict[str, Any]()
    while not done:
        x = policy.inputs(observation["observation"])
        pi = policy.probabilities(x, observation["action_mask"].astype(bool))
        action = min(int(np.searchsorted(np.cumsum(pi), rng.random())), len(pi) - 1)
        inputs.append(x)
        pi[action] -= 1.0
        surprise.append(-pi)
        observation, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    scores = info["scores"]
    return Played(float(reward), float(np.mean(scores[1:])), np.array(inputs), np.array(surprise))


class Adam:
    """Adam's steps (Kingma and Ba, 2015) for one array of weights."""

    def __init__(self, shape: tuple[int, ...], lr: float) -> None:
        self.lr, self.m, self.v, self.t = lr, np.zeros(shape), np.zeros(shape), 0

    def step(self, gradient: np.ndarray) -> np.ndarray:
        """The change for an ascent along ``gradient``."""
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * gradient
        self.v = 0.999 * self.v + 0.001 * gradient**2
        m, v = self.m / (1 - 0.9**self.t), self.v / (1 - 0.999**self.t)
        change: np.ndarray = self.lr * m / (np.sqrt(v) + 1e-8)
        return change


def train(
    env: ligretto.rl.SingleAgentEnv,
    *,
    rounds: int,
    batch: int = 32,
    lr: float = 0.02,
    seed: int = 0,
    report: Callable[[str], None] = print,
) -> Policy:
    """REINFORCE for ``rounds`` training rounds, ``batch`` rounds an update."""
    policy = Policy(env)
    adam = Adam(policy.weights.shape, lr)
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    for update in range(rounds // batch):
        played = [play(env, policy, round_seed(seed, update * batch + i + 1), rng) for i in range(batch)]
        scores = np.array([r.score for r in played])
        advantages = (scores - scores.mean()) / (scores.std() + 1e-6)
        gradient = sum(a * policy.gradient(r.inputs, r.surprise) for a, r in zip(advantages, played, strict=True))
        policy.weights += adam.step(np.asarray(gradient) / batch)
        if (update + 1) % max(1, rounds // batch // 20) == 0:
            bots = np.mean([r.bots for r in played])
            report(
                f"round {(update + 1) * batch:6d}: mean score {scores.mean():6.2f} "
                f"(bots {bots:6.2f}), {time.perf_counter() - started:5.1f} s"
            )
    return policy


def evaluate(env: ligretto.rl.SingleAgentEnv, policy: Policy, seeds: Sequence[int]) -> np.ndarray:
    """The learner's score and its lead over the bots' mean, one row per held-out round
    (the policy still samples, with its own fixed generator: reproducible)."""
    rng = np.random.default_rng(0)
    rounds = [play(env, policy, seed, rng) for seed in seeds]
    return np.array([[r.score, r.score - r.bots] for r in rounds])


def rule(env: ligretto.rl.SingleAgentEnv) -> Policy:
    """A rule written by hand, for comparison: play whenever a play is allowed (to a pile
    before a new one), else turn the hand; never wait or vote."""
    policy = Policy(env)
    names = sorted({kind(action) for action in env.table.layout.actions(0)})
    for column, name in enumerate(names, start=len(policy.scale) + 1):
        play, new = name.startswith("play"), name.endswith("new")
        policy.weights[0, column] = 20 if play and not new else 10 if play else 0 if name == "turn" else -20
    return policy


def interval(values: np.ndarray) -> str:
    """Mean ± the half-width of its 95 % confidence interval (normal approximation)."""
    return f"{values.mean():6.2f} ± {1.96 * values.std(ddof=1) / np.sqrt(len(values)):4.2f}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n", 1)[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponents", default="greedy:casual", help="bot specs, as --bots (default greedy:casual)")
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--rounds", type=int, default=3000, help="training rounds (default 3000)")
    parser.add_argument("--batch", type=int, default=32, help="rounds an update (default 32)")
    parser.add_argument("--lr", type=float, default=0.02, help="Adam's step size (default 0.02)")
    parser.add_argument("--eval", type=int, default=500, help="held-out rounds, seeds 0 to N - 1 (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="training rounds and sampling (default 0)")
    parser.add_argument("--save", help="save the weights to this .npy file")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 2 <= args.batch <= args.rounds or args.eval < 2:
        parser.error("--batch must be 2 or more, --rounds at least --batch, --eval 2 or more")

    env = ligretto.rl.single_agent_env(players=args.players, opponents=args.opponents, rules=args.rules)
    seeds = range(args.eval)
    started, cpu = time.perf_counter(), time.process_time()
    before = evaluate(env, Policy(env), seeds)
    policy = train(env, rounds=args.rounds, batch=args.batch, lr=args.lr, seed=args.seed)
    after = evaluate(env, policy, seeds)
    ruled = evaluate(env, rule(env), seeds)
    print(f"held-out rounds: {args.eval}, {args.players} players against {args.opponents}")
    print(f"random masked policy:  score {interval(before[:, 0])}, lead over the bots {interval(before[:, 1])}")
    print(f"learned policy:        score {interval(after[:, 0])}, lead over the bots {interval(after[:, 1])}")
    print(f"gain, same rounds:     score {interval(after[:, 0] - before[:, 0])}")
    print(f"rule, for comparison:  score {interval(ruled[:, 0])}, lead over the bots {interval(ruled[:, 1])}")
    print(f"time: {time.perf_counter() - started:.0f} s, {time.process_time() - cpu:.0f} s of CPU")
    if args.save:
        np.save(args.save, policy.weights)


if __name__ == "__main__":
    main()
