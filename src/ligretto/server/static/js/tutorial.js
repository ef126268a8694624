// The tutorial (#/learn): a guided first match of two rounds on the server's fixed deals
// against a tutor that waits.  `POST /api/tutorial` makes a private table and answers with
// its code, the learner's seat token and the script (every move of the match, in order,
// each with its round: docs/protocol.md).  The table screen plays it as any table; this
// module puts a coach above it: the lesson's instruction, the card, pile or button to use
// highlighted, a lesson that advances when the round's events show it done (at the race
// the tutor stages, when the `race` says the learner was beaten to it), each round's end
// on the score sheet (kept below the coach, never under it) until the next deal, and a
// friendly hint (nothing sent) for any other move.

import { announce, fill, h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { formatScore } from "./sheet.js";
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
  const kind = step.action.kind;
  if (kind === "turn") return effect.kind === "turned" && effect.player === step.seat;
  if (kind === "vote") return effect.kind === "vote" && effect.player === step.seat;
  const { source, position, pile } = step.action;
  return (
    effect.kind === "played" &&
    effect.player === step.seat &&
    effect.source === source &&
    (source !== "row" || effect.position === position) &&
    (pile === null ? effect.new_pile : effect.pile === pile)
  );
}

/** The lessons: the script's moves, each round's followed by its end on the score sheet
 * ("score" between rounds, "match" after the last). */
function lessonsOf(steps) {
  const rounds = [...new Set(steps.map((step) => step.round))];
  return rounds.flatMap((round) => [
    ...steps.filter((step) => step.round === round),
    { step: round === rounds[rounds.length - 1] ? "match" : "score", round, end: true },
  ]);
}

export class TutorialScreen {
  constructor(root, { onNet = () => {} } = {}) {
    this.root = root;
    this.onNet = onNet;
    this.closed = false;
    this.failed = false;
    this.script = null; // the server's answer: code, token, seat, tutor, steps
    this.lessons = []; // the script's steps and each round's end (lessonsOf)
    this.step = 0; // index of the lesson the learner is on
    this.over = null; // the last `round_over`: its scores and totals
    this.folded = false; // the coach shows its head only (the learner hid the tips; a new lesson shows them)
    this.table = null;
    this.coach = h("section", { class: "coach", id: "coach", "aria-labelledby": "coach-title" });
    this.tableRoot = h("div", { class: "tutorial-table" });
    this.screen = h("div", { class: "tutorial-screen" }, this.coach, this.tableRoot);
    this.observer = new MutationObserver(() => this.highlight());
    // The score sheet keeps below the coach (app.css reads --coach-bottom): the coach's
    // bottom edge in the viewport, followed as the coach grows or the page moves.
    this.dock = () => this.screen.style.setProperty("--coach-bottom", `${Math.max(0, Math.round(this.coach.getBoundingClientRect().bottom))}px`);
    this.resized = new ResizeObserver(this.dock);
    this.resized.observe(this.coach);
    window.addEventListener("scroll", this.dock, { passive: true });
    window.addEventListener("resize", this.dock);
    this.root.replaceChildren(this.screen);
    this.render();
    this.begin();
  }

  close() {
    this.closed = true;
    this.observer.disconnect();
    this.resized.disconnect();
    window.removeEventListener("scroll", this.dock);
    window.removeEventListener("resize", this.dock);
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
    this.lessons = lessonsOf(this.script.steps);
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

  get current() {
    return this.lessons[this.step] || null;
  }

  /** The current lesson is a move of the script (not a round's end). */
  get move() {
    const lesson = this.current;
    return lesson && !lesson.end ? lesson : null;
  }

  // --- following the match --------------------------------------------------------

  changed(kind, detail) {
    if (kind === "snapshot") {
      // A new deal (the next round, or a rematch: the tutorial again) starts at its round's first lesson.
      const lesson = this.current;
      const first = this.lessons.findIndex((each) => each.round === detail.round);
      if (first >= 0 && lesson && lesson.round !== detail.round) this.advance(first);
      return;
    }
    if (kind === "events") {
      const step = this.move;
      const next = this.lessons[this.step + 1];
      // A round's end comes with `round_over`, its scores.
      if (step && step.beaten_by == null && next && !next.end && detail.effects.some((effect) => doneBy(effect, step))) {
        this.advance(this.step + 1);
      }
      return;
    }
    if (kind === "race") {
      // The race the tutor stages: the learner's play was beaten to the pile, as the script says.
      const step = this.move;
      if (step && step.beaten_by != null && detail.loser === step.seat && detail.winner === step.beaten_by) {
        this.advance(this.step + 1);
      }
      return;
    }
    if (kind === "round_over") {
      this.over = detail;
      const end = this.lessons.findIndex((each) => each.end && each.round === detail.round);
      if (end >= 0) this.advance(end);
      return;
    }
    if (kind === "table") this.highlight();
  }

  advance(index) {
    this.step = index;
    this.render(true);
  }

  allows(action) {
    const step = this.move;
    return Boolean(step && step.seat === this.script.seat && sameMove(action, step.action));
  }

  /** Another move than the step's: a hint on the spot; nothing is sent. */
  wrong(action) {
    const step = this.move;
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

  /** What the current lesson asks for: selectors of the elements to highlight. */
  targets() {
    const lesson = this.current;
    if (!lesson) return [];
    if (lesson.end) return lesson.step === "score" ? ["#score-sheet", "#ready-button"] : ["#score-sheet"];
    if (lesson.seat !== this.script.seat) return [`.opponent[data-seat="${lesson.seat}"]`];
    const action = lesson.action;
    if (action.kind === "turn") return ["#turn-button"];
    if (action.kind === "vote") return ["#vote-button"];
    const slot = action.source === "row" ? `row-${action.position}` : action.source;
    const pile = action.pile === null ? '[data-pile="new"]' : `.pile[data-pile="${action.pile}"]`;
    const rival = lesson.beaten_by == null ? [] : [`.opponent[data-seat="${lesson.beaten_by}"]`];
    return [`.own [data-slot="${slot}"]`, pile, ...rival];
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
    const lesson = this.current;
    if (!lesson) return "";
    if (lesson.end) return this.scored(lesson);
    return t(`tutorial.step.${lesson.step}`, { button: t("own.vote") });
  }

  /** A round's end in words, with the server's scores: the scoring, or the match's totals. */
  scored(lesson) {
    const over = this.over;
    if (!over || over.round !== lesson.round) return "";
    const { seat, tutor } = this.script;
    if (lesson.step === "match") {
      return t("tutorial.step.match", { rounds: lesson.round, total: formatScore(over.totals[seat]), tutor_total: formatScore(over.totals[tutor]) });
    }
    const mine = over.scores[seat];
    const theirs = over.scores[tutor];
    return t("tutorial.step.score", {
      center: mine.center, stack: mine.stack, score: formatScore(mine.score),
      tutor_center: theirs.center, tutor_stack: theirs.stack, tutor_score: formatScore(theirs.score),
      button: t("sheet.next"),
    });
  }

  /** Hide the coach's words (its head stays, with the button that shows them again), so
   *  that a phone shows the score sheet below it; or show them. */
  fold(folded) {
    this.folded = folded;
    this.render();
  }

  render(advanced = false) {
    if (this.closed) return;
    if (advanced) this.folded = false; // a new lesson: its words show
    const focused = document.activeElement?.id === "coach-toggle";
    const total = this.lessons.length;
    const lesson = this.current;
    const finished = Boolean(lesson && lesson.step === "match" && this.over?.match_over);
    const text = this.instruction();
    this.coach.dataset.step = this.script && lesson ? lesson.step : "start";
    this.coach.classList.toggle("folded", this.folded);
    // A small arrow beside the step's number (the head keeps one line on a phone); its
    // words are its name and tooltip.
    const words = t(this.folded ? "tutorial.coach.show" : "tutorial.coach.hide");
    const toggle = h("button", {
      type: "button",
      class: "ghost small coach-toggle",
      id: "coach-toggle",
      title: words,
      "aria-label": words,
      "aria-expanded": this.folded ? "false" : "true",
      "aria-controls": "coach-body",
      onclick: () => this.fold(!this.folded),
    }, h("span", { "aria-hidden": "true" }, this.folded ? "▾" : "▴"));
    fill(
      this.coach,
      h("div", { class: "coach-head" },
        h("h2", { id: "coach-title", class: "coach-title" }, t("tutorial.title")),
        h("span", { class: "coach-tools" },
          this.script ? h("span", { class: "pill", id: "coach-progress" }, t("tutorial.progress", { n: Math.min(this.step + 1, total), total })) : null,
          toggle,
        ),
      ),
      h("div", { id: "coach-body", class: "coach-body", hidden: this.folded },
        h("p", { class: "coach-text", id: "coach-text", role: "status" }, text),
        finished ? h("p", { class: "coach-done" }, t("tutorial.done")) : null,
        this.failed
          ? h("div", { class: "coach-actions" }, h("a", { class: "button primary", href: "#/", id: "coach-lobby" }, t("nav.lobby")))
          : null,
      ),
    );
    if (advanced && text) announce(text);
    this.highlight();
    if (this.table && !advanced) this.table.render();
    if (focused) toggle.focus(); // all drawn anew: the keyboard's place stays on the button
    this.dock();
  }
}
