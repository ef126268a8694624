// Races for a pile as people see them (docs/fairness.md): the words of a play that lost
// one ("Alice was 12 ms faster"), the short note everyone at the table gets of every race
// (`race` messages: players and spectators alike), and the table's judging setting (fair
// or by arrival, and its window) in the rule form and the waiting room's summary.

import { h } from "./dom.js";
import { t } from "./i18n.js";

/** The judging window's bounds and default, in ms: the engine's (engine/races.py
 * MAX_WINDOW_MS, DEFAULT_WINDOW_MS; pinned by tests/browser/test_fair_judging.py). */
export const WINDOW_MS = { min: 0, max: 250, default: 200 };
export const DEFAULT_JUDGING = { arbitration: "fair", window_ms: WINDOW_MS.default };

const NOTE_MS = 2200;
const ANNOUNCE_GAP_MS = 3000;

/** The words for a play of ours that lost a race; `faster` is {name, mine, ms} of the
 * seat whose card took its place (`ms`: by how much sooner, when the server knows). */
export function lostRaceText(faster) {
  if (faster.mine) return t("refused.beaten.self"); // two of our own plays in flight
  if (Number.isInteger(faster.ms) && faster.ms > 0) return t("refused.faster", { name: faster.name, ms: faster.ms });
  return t("refused.beaten.by", { name: faster.name });
}

/** The words the host reads when a seat was flagged for inhuman speed (a `speed`
 * message, to the host only: docs/fairness.md "Inhuman speed"). */
export function speedNote(session, { seat, why, fast }) {
  const name = session.nameOf(seat);
  return why === "regular" ? t("speed.regular", { name }) : t("speed.fast", { name, fast });
}

/** The note of a race for this page, or null where none is shown: the loser has the
 * words of its refused play already, and a race of one seat against itself is no race. */
export function raceNote(session, { winner, loser, ms }) {
  if (!Number.isInteger(winner) || !Number.isInteger(loser) || winner === loser) return null;
  const me = session.watching ? null : session.seat;
  if (loser === me) return null;
  const timed = Number.isInteger(ms) && ms > 0;
  const rival = session.nameOf(loser);
  if (winner === me) return timed ? t("race.you", { loser: rival, ms }) : t("race.you.plain", { loser: rival });
  const name = session.nameOf(winner);
  return timed ? t("race.note", { winner: name, loser: rival, ms }) : t("race.note.plain", { winner: name, loser: rival });
}

/**
 * Every race at the table as one small note among the toasts: one element, its words
 * replaced by the latest race (a 12-seat table may have several a second), gone a moment
 * after the last.  Screen readers hear one now and then (`live`, polite), not every one.
 */
export class RaceNotes {
  constructor(session) {
    this.session = session;
    this.note = h("div", { class: "toast toast-race", id: "race-note", "aria-hidden": "true" });
    this.live = h("div", { class: "visually-hidden", id: "race-announce", "aria-live": "polite" });
    this.timer = null;
    this.announced = 0;
  }

  received(race) {
    const text = raceNote(this.session, race);
    if (!text) return;
    this.note.textContent = text;
    if (!this.note.isConnected) document.getElementById("toasts")?.append(this.note);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.note.remove(), NOTE_MS);
    const now = Date.now();
    if (now - this.announced >= ANNOUNCE_GAP_MS) {
      this.announced = now;
      this.live.textContent = text;
    }
  }

  close() {
    clearTimeout(this.timer);
    this.note.remove();
  }
}

/** The table's judging in a few words (the waiting room's summary of the rules). */
export function judgingSummary({ arbitration, window_ms: windowMs }) {
  return arbitration === "arrival" ? t("judging.summary.arrival") : t("judging.summary.fair", { ms: windowMs ?? WINDOW_MS.default });
}

/**
 * The judging fields of the rule form: "fair judging" on or off and the window.  `state`
 * holds `arbitration` and `window_ms` and is changed in place; `changed()` hears each
 * change.  Returns {element, show()}; `show` leaves alone the control being edited.
 */
export function judgingFields(state, { id, disabled, changed }) {
  const fair = h("input", { type: "checkbox", id: id("fair"), disabled, "aria-describedby": id("fair-help") });
  fair.addEventListener("change", () => {
    state.arbitration = fair.checked ? "fair" : "arrival";
    changed();
  });
  const windowInput = h("input", { type: "number", min: WINDOW_MS.min, max: WINDOW_MS.max, step: 1, inputmode: "numeric" });
  windowInput.id = id("window");
  windowInput.disabled = disabled;
  windowInput.setAttribute("aria-describedby", id("window-help"));
  windowInput.addEventListener("change", () => {
    const number = Number.parseInt(windowInput.value, 10);
    state.window_ms = Math.min(WINDOW_MS.max, Math.max(WINDOW_MS.min, Number.isNaN(number) ? WINDOW_MS.default : number));
    windowInput.value = String(state.window_ms);
    changed();
  });
  const element = h("div", { class: "judging" },
    h("div", { class: "field field-check" },
      h("label", { for: fair.id }, t("judging.fair")),
      fair,
      h("small", { class: "help", id: id("fair-help") }, t("judging.fair.help")),
    ),
    h("div", { class: "field" },
      h("label", { for: windowInput.id }, t("judging.window")),
      windowInput,
      h("small", { class: "help", id: id("window-help") }, t("judging.window.help")),
    ),
  );
  return {
    element,
    show() {
      fair.checked = state.arbitration !== "arrival";
      if (document.activeElement !== windowInput) windowInput.value = String(state.window_ms);
    },
  };
}
