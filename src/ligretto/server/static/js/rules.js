// The rule form: a preset and every rule option, each explained in plain words.  The
// options and presets are the engine's (engine/rules.py: OPTIONS, PRESETS), fetched once
// at start-up from GET /api/presets; this module keeps no copy of them.

import { h } from "./dom.js";
import { has, plural, t } from "./i18n.js";
import { DEFAULT_JUDGING, judgingFields } from "./races.js";

/**
 * What GET /api/presets answered: `options`, each {name, type, values?, min?, max?,
 * default, help} (type "choice", "flag", "number" or "match_end"; a match_end's `max` is
 * per kind: {rounds: N, target: N}), and `presets`, each
 * {name, rules} with every option, classic first.
 */
let catalog = { options: [], presets: [] };
let loading = null;

/**
 * Fetch the rule options and presets, once: start-up waits for them.  While the server
 * cannot be reached it tries again, waiting longer each time; `onRetry` hears of each failure.
 */
export function loadRuleOptions({ onRetry = () => {} } = {}) {
  if (!loading) loading = fetchRuleOptions(onRetry);
  return loading;
}

async function fetchRuleOptions(onRetry) {
  for (let pause = 500; ; pause = Math.min(2 * pause, 8000)) {
    try {
      const response = await fetch("/api/presets");
      if (!response.ok) throw new Error(`GET /api/presets answered ${response.status}`);
      catalog = await response.json();
      return catalog;
    } catch (error) {
      onRetry(error);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

export const STRATEGIES = ["smart", "sharp", "greedy", "random"];
export const LEVELS = ["beginner", "casual", "skilled", "expert", "machine"];

/** The text of `key`, or the raw name when the texts lack it (an option newer than they are). */
function textOr(key, name) {
  return has(key) ? t(key) : String(name);
}

/** The classic rule set: every option at its default. */
function classicRules() {
  return Object.fromEntries(catalog.options.map((option) => [option.name, option.default]));
}

export function presetRules(name) {
  const preset = catalog.presets.find((entry) => entry.name === name);
  return { ...classicRules(), ...(preset ? preset.rules : {}) };
}

function same(a, b) {
  return catalog.options.every(({ name }) => String(a[name]) === String(b[name]));
}

/** The names of the server's presets, in its order (the history page's filter). */
export function presetNames() {
  return catalog.presets.map((entry) => entry.name);
}

/** The preset a rule set is exactly, or "" (custom). The server lists classic before its twin seed-fi. */
export function presetOf(rules) {
  const preset = catalog.presets.find((entry) => same(entry.rules, rules));
  return preset ? preset.name : "";
}

/** How a match ends ("rounds:5", "target:100") in words: "Rounds: 5", "To 100 points". */
export function matchEndText(matchEnd) {
  const [kind, n] = String(matchEnd).split(":");
  return kind === "target" ? plural("rules.summary.target", Number(n), { n }) : t("rules.summary.rounds", { n });
}

/** A short line saying what is special about a rule set, for the table list and headers. */
export function rulesSummary(rules) {
  const preset = presetOf(rules);
  const parts = [preset ? textOr(`preset.${preset}`, preset) : t("preset.custom")];
  parts.push(matchEndText(rules.match_end));
  if (rules.expert) parts.push(t("option.expert"));
  return parts.join(" · ");
}

/** The score sheet's wait for *Ready*, in seconds: its bounds and default, the server's
 * (server/table/timing.py MIN_READY_S, MAX_READY_S, READY_S; pinned by
 * tests/browser/test_fair_judging.py). */
export const READY_S = { min: 5, max: 600, default: 30 };

/** Who may watch a table's replays (the server's `replays`): anyone with the link, or its players. */
const REPLAYS = ["link", "players"];
const DEFAULT_REPLAYS = "link";

/**
 * The rule form: preset, every option with its explanation, seat count, public, who may
 * watch the replays, the wait for *Ready* between rounds and the judging of races.
 * `values`: {rules, seats, public, replays?, ready_s?, arbitration?, window_ms?};
 * `onChange(settings)` gets {preset, options, seats, public, replays, ready_s,
 * arbitration, window_ms} whenever a control changes.
 * Returns the element; it keeps its own state.
 * `only`: the names of the options to show (the others keep the preset's values), without
 * the table's own fields (seats, public, replays, the wait, judging): the score keeper's form.
 */
export function rulesForm(values, { onChange = () => {}, disabled = false, idPrefix = "rules", only = null } = {}) {
  const state = {
    rules: { ...classicRules(), ...values.rules }, seats: values.seats, public: values.public,
    replays: values.replays ?? DEFAULT_REPLAYS, ready_s: values.ready_s ?? READY_S.default, ...judgingOf(values),
  };
  const id = (name) => `${idPrefix}-${name}`;
  const changed = () => onChange(settingsOf(state));

  const presetSelect = h(
    "select",
    { id: id("preset"), disabled, onchange: () => {
      if (presetSelect.value) {
        state.rules = presetRules(presetSelect.value);
        refreshControls();
        changed();
      }
    } },
    h("option", { value: "" }, t("preset.custom")),
    catalog.presets.map(({ name }) => h("option", { value: name }, textOr(`preset.${name}`, name))),
  );
  const presetHelp = h("small", { class: "help", id: id("preset-help") });

  const shown = only ? catalog.options.filter((option) => only.includes(option.name)) : catalog.options;
  const fields = shown.map((option) =>
    optionField(option, {
      id,
      disabled,
      onValue: (value) => {
        state.rules[option.name] = value;
        refreshPreset();
        changed();
      },
    }),
  );

  const seats = h("input", { type: "number", min: 2, max: 12, step: 1, inputmode: "numeric" });
  seats.id = id("seats");
  seats.disabled = disabled;
  seats.setAttribute("aria-describedby", id("seats-help"));
  seats.addEventListener("change", () => {
    state.seats = Math.min(12, Math.max(2, Number.parseInt(seats.value, 10) || 2));
    seats.value = String(state.seats);
    changed();
  });
  const isPublic = h("input", { type: "checkbox", id: id("public"), disabled, "aria-describedby": id("public-help") });
  isPublic.addEventListener("change", () => {
    state.public = isPublic.checked;
    changed();
  });

  const replays = h("select", { id: id("replays"), disabled, "aria-describedby": id("replays-help") },
    REPLAYS.map((value) => h("option", { value }, t(`table.replays.${value}`))));
  replays.addEventListener("change", () => {
    state.replays = replays.value;
    changed();
  });

  // Whole seconds within the server's bounds (a number it would refuse is never sent).
  const ready = h("input", { type: "number", min: READY_S.min, max: READY_S.max, step: 1, inputmode: "numeric" });
  ready.id = id("ready");
  ready.disabled = disabled;
  ready.setAttribute("aria-describedby", id("ready-help"));
  ready.addEventListener("change", () => {
    const number = Number.parseInt(ready.value, 10);
    state.ready_s = Math.min(READY_S.max, Math.max(READY_S.min, Number.isNaN(number) ? READY_S.default : number));
    ready.value = String(state.ready_s);
    changed();
  });

  const judging = judgingFields(state, { id, disabled, changed });
  const presetField = h(
    "div",
    { class: "field field-wide" },
    h("label", { for: presetSelect.id }, t("rules.preset")),
    presetSelect,
    presetHelp,
  );
  const form = only
    ? h("div", { class: "rules-form" }, presetField, h("div", { class: "options-grid" }, fields.map((field) => field.element)))
    : h(
    "div",
    { class: "rules-form" },
    presetField,
    h(
      "div",
      { class: "field" },
      h("label", { for: seats.id }, t("table.seats")),
      seats,
      h("small", { class: "help", id: id("seats-help") }, t("table.seats.help")),
    ),
    h(
      "div",
      { class: "field field-check" },
      h("label", { for: isPublic.id }, t("table.public")),
      isPublic,
      h("small", { class: "help", id: id("public-help") }, t("table.public.help")),
    ),
    h(
      "div",
      { class: "field" },
      h("label", { for: replays.id }, t("table.replays")),
      replays,
      h("small", { class: "help", id: id("replays-help") }, t("table.replays.help")),
    ),
    h(
      "div",
      { class: "field" },
      h("label", { for: ready.id }, t("table.ready")),
      ready,
      h("small", { class: "help", id: id("ready-help") }, t("table.ready.help", { min: READY_S.min, max: READY_S.max })),
    ),
    judging.element,
    h(
      "details",
      { class: "options", open: values.open || false },
      h("summary", {}, t("rules.options")),
      h("div", { class: "options-grid" }, fields.map((field) => field.element)),
    ),
  );

  function refreshPreset() {
    const preset = presetOf(state.rules);
    presetSelect.value = preset;
    presetHelp.textContent = preset ? textOr(`preset.${preset}.help`, "") : t("preset.custom.help");
  }

  function refreshControls() {
    shown.forEach((option, i) => fields[i].show(state.rules[option.name]));
    refreshPreset();
    if (only) return;
    if (document.activeElement !== seats) seats.value = String(state.seats);
    isPublic.checked = Boolean(state.public);
    replays.value = state.replays;
    if (document.activeElement !== ready) ready.value = String(state.ready_s);
    judging.show();
  }

  /** Show new values (the table changed) without disturbing the control being edited. */
  form.update = (next) => {
    state.rules = { ...classicRules(), ...next.rules };
    state.seats = next.seats;
    state.public = next.public;
    state.replays = next.replays ?? DEFAULT_REPLAYS;
    state.ready_s = next.ready_s ?? READY_S.default;
    Object.assign(state, judgingOf(next));
    refreshControls();
  };
  form.settings = () => settingsOf(state);
  refreshControls();
  return form;
}

/**
 * One option's field: its label, control and help.  Returns {element, show(value)};
 * `show` leaves alone the control being edited; `onValue(value)` hears every change.
 */
function optionField(option, { id, disabled, onValue }) {
  const name = option.name;
  const label = textOr(`option.${name}`, name);
  const help = h("small", { class: "help", id: id(`${name}-help`) }, textOr(`option.${name}.help`, option.help || ""));
  if (option.type === "match_end") return matchEndField(option, { id, disabled, onValue, label, help });

  const control = optionControl(option);
  control.id = id(name);
  control.setAttribute("aria-describedby", help.id);
  control.disabled = disabled;
  control.addEventListener("change", () => onValue(readControl(option, control)));
  const check = control.type === "checkbox";
  return {
    element: h("div", { class: ["field", check ? "field-check" : null] }, h("label", { for: control.id }, label), control, help),
    show(value) {
      if (document.activeElement === control) return;
      if (check) control.checked = Boolean(value);
      else control.value = String(value);
    },
  };
}

function optionControl(option) {
  if (option.type === "flag") return h("input", { type: "checkbox" });
  if (option.type === "number") {
    return h("input", { type: "number", min: option.min, max: option.max, step: 1, inputmode: "numeric" });
  }
  if (option.type === "choice") {
    const choices = option.values.map((value) => h("option", { value: String(value) }, textOr(`${option.name}.${value}`, value)));
    return h("select", {}, choices);
  }
  return h("input", { type: "text" }); // a kind of option this client does not know: its value as text
}

function readControl(option, control) {
  if (control.type === "checkbox") return control.checked;
  if (option.type === "number") {
    const number = Number.parseInt(control.value, 10);
    return Math.min(option.max ?? Infinity, Math.max(option.min ?? -Infinity, Number.isNaN(number) ? 0 : number));
  }
  if (option.type === "choice") return option.values.find((value) => String(value) === control.value) ?? control.value;
  return control.value;
}

/** The end of the match, `kind:N`: a select for the kind and a number. */
function matchEndField(option, { id, disabled, onValue, label, help }) {
  const kind = h(
    "select",
    { id: id(`${option.name}-kind`), disabled, "aria-label": label },
    option.values.map((value) => h("option", { value }, textOr(`${option.name}.${value}`, value))),
  );
  const n = h("input", {
    id: id(option.name),
    type: "number",
    min: option.min,
    max: option.max?.[option.values[0]],
    step: 1,
    disabled,
    "aria-label": t("match_end.n"),
    "aria-describedby": help.id,
  });
  // The largest N depends on the kind (`max` is {rounds: .., target: ..}).
  const highest = () => option.max?.[kind.value] ?? Infinity;
  const bound = () => {
    if (Number.isFinite(highest())) n.max = String(highest());
  };
  const changed = () => {
    bound();
    const number = Math.min(highest(), Math.max(option.min ?? 1, Number.parseInt(n.value, 10) || 1));
    onValue(`${kind.value}:${number}`);
  };
  kind.addEventListener("change", changed);
  n.addEventListener("change", changed);
  return {
    element: h("div", { class: "field" }, h("label", { for: n.id }, label), h("span", { class: "inline" }, kind, n), help),
    show(value) {
      const [chosen, number] = String(value).split(":");
      if (document.activeElement !== kind) kind.value = chosen;
      if (document.activeElement !== n) n.value = number;
      bound();
    },
  };
}

/** What the server needs: a preset and the options that differ from it. */
function settingsOf(state) {
  const preset = presetOf(state.rules) || "classic";
  const base = presetRules(preset);
  const options = {};
  for (const { name } of catalog.options) {
    if (String(base[name]) !== String(state.rules[name])) options[name] = state.rules[name];
  }
  return {
    preset, options, seats: state.seats, public: state.public, replays: state.replays, ready_s: state.ready_s,
    arbitration: state.arbitration, window_ms: state.window_ms,
  };
}

/** The judging of `values` (a table message's, or the form's), the default's where absent. */
function judgingOf(values) {
  return {
    arbitration: values.arbitration ?? DEFAULT_JUDGING.arbitration,
    window_ms: values.window_ms ?? DEFAULT_JUDGING.window_ms,
  };
}
