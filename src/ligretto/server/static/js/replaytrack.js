// A replay's round as the client model sees it after any number of steps: the snapshot
// the server replayed the round from, then each step's `events` applied by the one round
// model of the client (mirror.js `applyEvents`), never a second one.  Going back rebuilds
// from the nearest kept checkpoint (every CHECKPOINT steps, made on the way forward).

import { applyEvents } from "./mirror.js";

const CHECKPOINT = 64;

export class ReplayTrack {
  /** `replay` is the answer of GET /api/replays/{token}. */
  constructor(replay) {
    this.replay = replay;
    this.steps = replay.steps;
    this.view = structuredClone(replay.snapshot.view);
    this.index = 0; // how many steps are applied
    this.checkpoints = new Map([[0, structuredClone(this.view)]]);
    // Each step's time from "go"; a step stored without one takes the time before it.
    let last = 0;
    this.times = this.steps.map((step) => (last = Number.isFinite(step.t) ? step.t : last));
  }

  get length() {
    return this.steps.length;
  }

  /** The time of the last applied step (0 at the deal). */
  get time() {
    return this.index === 0 ? 0 : this.times[this.index - 1];
  }

  get duration() {
    return this.length ? this.times[this.length - 1] : 0;
  }

  /** The step that brought the round to `index` (null at the deal). */
  stepAt(index) {
    return index > 0 ? this.steps[index - 1] : null;
  }

  /** Apply the next step; returns what it caused (the mirror's effects) and its race. */
  forward() {
    if (this.index >= this.length) return null;
    const step = this.steps[this.index];
    const effects = step.events ? applyEvents(this.view, step.events.events) : [];
    this.index += 1;
    if (this.index % CHECKPOINT === 0 && !this.checkpoints.has(this.index)) {
      this.checkpoints.set(this.index, structuredClone(this.view));
    }
    return { step, effects, race: step.race || null };
  }

  /** The round after `index` steps (0: the deal): back (or far ahead) from the nearest
   * checkpoint at or before it, then forward step by step.  Every checkpoint up to the
   * furthest step reached exists, since the way there was walked step by step. */
  goTo(index) {
    const target = Math.max(0, Math.min(this.length, index));
    let start = target - (target % CHECKPOINT);
    while (!this.checkpoints.has(start)) start -= CHECKPOINT;
    if (target < this.index || start > this.index) {
      this.view = structuredClone(this.checkpoints.get(start));
      this.index = start;
    }
    while (this.index < target) this.forward();
    return this.view;
  }

  /** How many steps have happened by `seconds` from "go". */
  indexAt(seconds) {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.times[middle] <= seconds) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
