// The tutorial (#/learn): a guided first round on the server's fixed deal against a tutor
// that waits.  `POST /api/tutorial` makes a private table and answers with its code, the
// learner's seat token and the script (every move of the round, in order: docs/protocol.md).
// The table screen plays it as any table; this module puts a coach above it: the step's
// instruction, the card, pile or button to use highlighted, a step that advances when the
// round's events show it done, and a friendly hint (nothing sent) for any other move.

import { announce, fill, h, toast } from "./dom.js";
import { plural, t } from "./i18n.js";
import { storage } from "./storage.js";
import { TableScreen } from "./tableview.js";

const TARGET = "tutorial-target";

/** Whether an action is the script's move (the script names no card: most are hidden). */
function sameMove(action, expected) {
  if (action.kind !== expected.kind) return false;
  if (action.kind !== "play") return true;
  return (
    action.source === expected.source &&
    (action.source !== "row" || action.position === expected.position) &&
    (action.pile ?? null) === (expected.pile ?? null)
  );
}

/** Whether an `events` effect is the script's step done. */
function doneBy(effect, step) {
  if (step.action.kind === "turn") return effect.kind === "turned" && effect.player === step.seat;
  const { source, position, pile } = step.action;
  return (
    effect.kind === "played" &&
    effect.player === step.seat &&
    effect.source === source &&
    (source !== "row" || effect.position === position) &&
    (pile === null ? effect.new_pile : effect.pile === pile)
  );
}

export class TutorialScreen {
  constructor(root, { onNet = () => {} } = {}) {
    this.root = root;
    this.onNet = onNet;
    this.closed = false;
    this.failed = false;
    this.script = null; // the server's answer: code, token, seat, tutor, steps
    this.step = 0; // index of the step the learner is on (steps.length: the score)
    this.scores = null;
    this.table = null;
    this.coach = h("section", { class: "coach", id: "coach", "aria-labelledby": "coach-title" });
    this.tableRoot = h("div", { class: "tutorial-table" });
    this.observer = new MutationObserver(() => this.highlight());
    this.root.replaceChildren(h("div", { class: "tutorial-screen" }, this.coach, this.tableRoot));
    this.render();
    this.begin();
  }

  close() {
    this.closed = true;
    this.observer.disconnect();
    if (this.table) this.table.close();
    if (this.script) storage.forgetToken(this.script.code); // a tutorial is never resumed
  }

  async begin() {
    this.script = await this.create(storage.name() || t("tutorial.you"));
    if (this.closed) return;
    if (!this.script) {
      this.failed = true;
      this.render();
      return;
    }
    const { code, token, tutor } = this.script;
    storage.setToken(code, token); // the page comes to its seat with it: no name prompt
    this.table = new TableScreen(this.tableRoot, code, { onNet: this.onNet });
    const session = this.table.session;
    const nameOf = session.nameOf.bind(session);
    session.nameOf = (seat) => (seat === tutor ? t("tutorial.tutor") : nameOf(seat));
    const act = session.act.bind(session);
    session.act = (action) => (this.allows(action) ? act(action) : this.wrong(action));
    session.on((kind, detail) => this.changed(kind, detail));
    this.observer.observe(this.tableRoot, { childList: true, subtree: true });
    this.render();
  }

  /** A tutorial table from the server (a stored name it refuses: the default name). */
  async create(name) {
    for (const each of [name, t("tutorial.you")]) {
      try {
        const response = await fetch("/api/tutorial", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ name: each }),
        });
        if (response.status === 201) return await response.json();
        if (response.status !== 400) return null;
      } catch {
        return null;
      }
    }
    return null;
  }

  get steps() {
    return this.script ? this.script.steps : [];
  }

  get current() {
    return this.steps[this.step] || null;
  }

  // --- following the round --------------------------------------------------------

  changed(kind, detail) {
    if (kind === "snapshot") {
      // A new deal (the first, or a rematch: the tutorial again) starts at the first step.
      if (!detail.view.center.length && this.step >= this.steps.length) {
        this.step = 0;
        this.scores = null;
        this.render();
      }
      return;
    }
    if (kind === "events") {
      const step = this.current;
      if (step && detail.effects.some((effect) => doneBy(effect, step))) {
        this.step += 1;
        this.render(true);
      }
      return;
    }
    if (kind === "round_over") {
      this.scores = detail.scores;
      this.step = this.steps.length;
      this.render(true);
      return;
    }
    if (kind === "table") this.highlight();
  }

  allows(action) {
    const step = this.current;
    return Boolean(step && step.seat === this.script.seat && sameMove(action, step.action));
  }

  /** Another move than the step's: a hint on the spot; nothing is sent. */
  wrong(action) {
    const step = this.current;
    const text = step && step.seat !== this.script.seat ? t("tutorial.hint.wait") : t("tutorial.hint");
    if (action.kind === "play") this.table.board.refused({ source: action.source, position: action.position ?? 0, card: action.card }, text, null);
    else toast(text, "warn", 2200);
    this.coach.classList.remove("nudge");
    void this.coach.offsetWidth; // restart the animation
    this.coach.classList.add("nudge");
    announce(text);
    return null;
  }

  // --- drawing --------------------------------------------------------------------

  /** What the current step asks for: selectors of the elements to highlight. */
  targets() {
    const step = this.current;
    if (!step) return ["#score-sheet"];
    if (step.seat !== this.script.seat) return [`.opponent[data-seat="${step.seat}"]`];
    const action = step.action;
    if (action.kind === "turn") return ["#turn-button"];
    const slot = action.source === "row" ? `row-${action.position}` : action.source;
    const pile = action.pile === null ? '[data-pile="new"]' : `.pile[data-pile="${action.pile}"]`;
    return [`.own [data-slot="${slot}"]`, pile];
  }

  highlight() {
    if (!this.script) return;
    const wanted = new Set(this.targets().flatMap((selector) => [...this.tableRoot.querySelectorAll(selector)]));
    for (const element of this.tableRoot.querySelectorAll(`.${TARGET}`)) {
      if (!wanted.has(element)) element.classList.remove(TARGET);
    }
    for (const element of wanted) if (!element.classList.contains(TARGET)) element.classList.add(TARGET);
  }

  instruction() {
    if (this.failed) return t("tutorial.failed");
    if (!this.script) return t("tutorial.intro");
    const step = this.current;
    if (step) return t(`tutorial.step.${step.step}`);
    const mine = this.scores ? this.scores[this.script.seat] : null;
    return mine ? plural("tutorial.step.score", mine.score, { center: mine.center, stack: mine.stack, score: mine.score }) : "";
  }

  render(advanced = false) {
    if (this.closed) return;
    const total = this.steps.length + 1;
    const number = Math.min(this.step + 1, total);
    const finished = this.script && this.step >= this.steps.length;
    const text = this.instruction();
    this.coach.dataset.step = this.current ? this.current.step : finished ? "score" : "start";
    fill(
      this.coach,
      h("div", { class: "coach-head" },
        h("h2", { id: "coach-title", class: "coach-title" }, t("tutorial.title")),
        this.script ? h("span", { class: "pill", id: "coach-progress" }, t("tutorial.progress", { n: number, total })) : null,
      ),
      h("p", { class: "coach-text", id: "coach-text", role: "status" }, text),
      finished && this.scores ? h("p", { class: "coach-done" }, t("tutorial.done")) : null,
      finished || this.failed
        ? h("div", { class: "coach-actions" },
            h("a", { class: "button primary", href: "#/", id: "coach-lobby" }, t("nav.lobby")),
          )
        : null,
    );
    if (advanced) announce(text);
    this.highlight();
    if (this.table && !advanced) this.table.render();
  }
}
