// Entering a round of the score keeper the way the table counts it: for each player the
// cards in the center and the cards left in the Ligretto stack, each with big steppers
// (− / +) and a number pad, and who called Stop (or a stalemate); under `first_out` only
// who stopped.  The instant checks are the engine's bounds (`check_entry` in the engine
// makes every check; tests/client/test_conformance.py pins these to it): a count out of
// bounds stays as entered, marked, with its reason right under it (read out), and the
// round cannot be saved until it is fixed; an unlikely entry (a second player with 0 left
// after a Stop) asks to confirm first.

import { backBadge } from "./cards.js";
import { h } from "./dom.js";
import { listOf, plural, t } from "./i18n.js";

/** The most cards a Ligretto stack holds (the engine's STACK_SIZE) and the least of any count. */
export const STACK_MAX = 10;
export const COUNT_MIN = 0;

const MINUS = "\u2212";

/** An entry with nothing counted yet. */
export function emptyEntry(players) {
  return { center: Array(players).fill(0), stack: Array(players).fill(0), ending: null, stopped_by: null };
}

/** What the screen refuses at once in one count (`field`: center or stack): the key of
 * its message, or null. */
export function countProblem(field, count) {
  if (!Number.isInteger(count) || count < COUNT_MIN) return "keep.check.negative";
  if (field === "stack" && count > STACK_MAX) return "keep.check.stack";
  return null;
}

/** What the screen refuses at once: {seat, key, field} of the first count out of bounds, or null. */
export function instantProblem(entry) {
  for (const [field, counts] of [["center", entry.center], ["stack", entry.stack]]) {
    for (const [seat, count] of counts.entries()) {
      const key = countProblem(field, count);
      if (key) return { seat, key, field };
    }
  }
  return null;
}

/** The players other than the caller with 0 left in the stack after a Stop (unlikely: ask first). */
export function alsoOut(entry) {
  if (entry.ending !== "stop") return [];
  return entry.stack.flatMap((count, seat) => (count === 0 && seat !== entry.stopped_by ? [seat] : []));
}

/**
 * The form of one round.  `players`: [{name, back}]; `firstOut`: only who stopped;
 * `entry`: the counts to start from (a correction); `onSave(entry)` once it is checked
 * and, if unlikely, confirmed; `onCancel()`.  Returns the element (its `entry()`: the
 * counts so far).
 */
export function entryForm({ players, firstOut, entry, title, onSave, onCancel }) {
  const state = structuredClone(entry || emptyEntry(players.length));
  const message = h("p", { class: "entry-message", id: "entry-message", role: "alert" });
  const say = (text) => {
    message.textContent = text;
  };
  const nameOf = (seat) => players[seat].name;
  const counters = { center: [], stack: [] };

  /** Set one count as entered: one out of bounds is kept, marked, its reason under it. */
  const setCount = (field, seat, value) => {
    state[field][seat] = value;
    counters[field][seat].show();
  };

  const rows = firstOut ? [] : players.map((player, seat) => h("li", { class: "entry-player", dataset: { seat } },
    h("div", { class: "entry-name" }, backBadge(player.back, "md"), h("span", { class: "sheet-name", id: `entry-name-${seat}` }, player.name)),
    ["center", "stack"].map((field) => {
      const made = counter({ field, seat, label: t(`keep.entry.${field}`), state, setCount, nameOf });
      counters[field][seat] = made;
      return made.element;
    }),
  ));

  const endings = h("fieldset", { class: "entry-ending", id: "entry-ending" },
    h("legend", {}, t(firstOut ? "keep.entry.first_out" : "keep.entry.ending")),
    players.map((player, seat) => choice(`stop-${seat}`, t("keep.entry.stopped", { name: player.name }),
      state.ending === "stop" && state.stopped_by === seat, () => Object.assign(state, { ending: "stop", stopped_by: seat }))),
    choice("stalemate", t("keep.entry.stalemate"), state.ending === "stalemate",
      () => Object.assign(state, { ending: "stalemate", stopped_by: null })),
  );

  const confirm = h("dialog", { class: "help-dialog", id: "entry-confirm", "aria-labelledby": "entry-confirm-text" });
  const save = () => {
    const problem = instantProblem(state);
    if (problem) {
      // The count to fix, its reason under it: in view, and the focus on it.
      counters[problem.field][problem.seat].point();
      return say("");
    }
    if (!state.ending) return say(t("keep.check.ending"));
    const out = firstOut ? [] : alsoOut(state);
    if (!out.length) return onSave(structuredClone(state));
    confirm.replaceChildren(
      h("p", { id: "entry-confirm-text" }, plural("keep.confirm.also_out", out.length, { names: listOf(out.map(nameOf)), name: nameOf(state.stopped_by) })),
      h("div", { class: "inline" },
        h("button", { type: "button", class: "primary", id: "entry-confirm-yes", onclick: () => {
          confirm.close();
          onSave(structuredClone(state));
        } }, t("keep.confirm.yes")),
        h("button", { type: "button", id: "entry-confirm-no", onclick: () => confirm.close() }, t("keep.confirm.no")),
      ),
    );
    confirm.showModal();
  };

  const form = h("section", { class: "panel entry", id: "entry", "aria-labelledby": "entry-title" },
    h("h2", { id: "entry-title" }, title),
    rows.length ? h("ul", { class: "entry-players" }, rows) : null,
    endings,
    message,
    h("div", { class: "entry-actions" },
      h("button", { type: "button", class: "primary big", id: "entry-save", onclick: save }, t("keep.entry.save")),
      h("button", { type: "button", id: "entry-cancel", onclick: onCancel }, t("keep.entry.cancel")),
    ),
    confirm,
  );
  /** The counts as entered so far (the form drawn again in another language keeps them). */
  form.entry = () => structuredClone(state);
  return form;
}

function choice(id, label, checked, onpick) {
  return h("label", { class: "entry-choice", for: `entry-${id}` },
    h("input", { type: "radio", name: "entry-ending", id: `entry-${id}`, checked, onchange: onpick }),
    h("span", {}, label));
}

/** One count: − / the number (a tap opens the number pad) / +, and under them why the
 * count cannot be (an empty live region until then).  Returns {element, show, point}. */
function counter({ field, seat, label, state, setCount, nameOf }) {
  const id = `entry-${field}-${seat}`;
  const problem = h("p", { class: "count-problem", id: `${id}-problem`, role: "alert" });
  const value = h("button", {
    type: "button", class: "count-value", id, dataset: { field, seat }, "aria-describedby": problem.id,
  });
  const show = () => {
    const n = state[field][seat];
    const key = countProblem(field, n);
    value.textContent = n < 0 ? `${MINUS}${-n}` : String(n);
    value.setAttribute("aria-label", t("keep.entry.pad_open", { what: label, name: nameOf(seat), n }));
    value.classList.toggle("invalid", Boolean(key));
    if (key) value.setAttribute("aria-invalid", "true");
    else value.removeAttribute("aria-invalid");
    const text = key ? t(key, { name: nameOf(seat), max: STACK_MAX }) : "";
    if (problem.textContent !== text) problem.textContent = text;
    return key;
  };
  /** In view: the count and its reason, without moving the page more than needed. */
  const reveal = () => {
    const row = value.closest(".count") ?? value;
    row.scrollIntoView({ block: "nearest" });
  };
  const step = (by) => () => {
    setCount(field, seat, state[field][seat] + by);
    reveal();
  };
  const pad = numberPad({
    label: `${label}, ${nameOf(seat)}`,
    onDone: (n) => {
      if (n !== null) setCount(field, seat, n);
      value.focus({ preventScroll: true });
      reveal();
    },
  });
  value.addEventListener("click", () => pad.open(state[field][seat]));
  show();
  const element = h("div", { class: "count", dataset: { field } },
    h("span", { class: "count-label", "aria-hidden": "true" }, label),
    h("button", { type: "button", class: "step", id: `${id}-minus`, onclick: step(-1), "aria-label": t("keep.entry.less", { what: label, name: nameOf(seat) }) }, MINUS),
    value,
    h("button", { type: "button", class: "step", id: `${id}-plus`, onclick: step(1), "aria-label": t("keep.entry.more", { what: label, name: nameOf(seat) }) }, "+"),
    problem,
    pad.element,
  );
  return {
    element,
    show,
    point() {
      value.focus({ preventScroll: true });
      value.closest(".entry-player")?.scrollIntoView({ block: "center" });
    },
  };
}

/** Digits 0-9, erase and OK under a count: for "18" two taps, not eighteen. */
function numberPad({ label, onDone }) {
  let typed = "";
  const shown = h("output", { class: "pad-shown", "aria-live": "polite" });
  const element = h("div", { class: "pad", hidden: true, role: "group", "aria-label": label });
  const show = () => {
    shown.textContent = typed || "0";
  };
  const press = (digit) => () => {
    typed = (typed + digit).replace(/^0+(?=\d)/, "").slice(0, 2);
    show();
  };
  const done = () => {
    element.hidden = true;
    onDone(Number.parseInt(typed || "0", 10));
  };
  const keys = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((d) => h("button", { type: "button", class: "pad-key", dataset: { digit: d }, onclick: press(String(d)) }, String(d)));
  element.append(
    shown,
    h("div", { class: "pad-keys" },
      keys,
      h("button", { type: "button", class: "pad-key", "aria-label": t("keep.pad.erase"), onclick: () => {
        typed = typed.slice(0, -1);
        show();
      } }, "⌫"),
      h("button", { type: "button", class: "pad-key", dataset: { digit: 0 }, onclick: press("0") }, "0"),
      h("button", { type: "button", class: "pad-key primary", dataset: { ok: "" }, onclick: done }, t("keep.pad.ok")),
    ),
  );
  // A keyboard works the pad too: digits, Backspace, Enter (OK), Escape (no change).
  element.addEventListener("keydown", (event) => {
    if (/^\d$/.test(event.key)) press(event.key)();
    else if (event.key === "Backspace") typed = typed.slice(0, -1);
    else if (event.key === "Enter") {
      event.preventDefault(); // not a click on the focused digit
      return done();
    }
    else if (event.key === "Escape") {
      element.hidden = true;
      onDone(null);
    } else return;
    show();
    event.preventDefault();
  });
  return {
    element,
    open(current) {
      typed = "";
      show();
      shown.textContent = current < 0 ? `${MINUS}${-current}` : String(current);
      element.hidden = false;
      element.querySelector(".pad-key").focus();
    },
  };
}
