// The rule options and presets of RULES.md (engine/rules.py: OPTIONS, PRESETS), and the
// form that sets them, every option explained in plain words.

import { h } from "./dom.js";
import { t } from "./i18n.js";

export const CLASSIC = {
  row_size: "classic",
  short_turn: "turn_remaining",
  recycle_shuffle: true,
  stack_penalty: 2,
  floor_at_zero: false,
  scoring: "cards",
  match_end: "rounds:5",
  expert: false,
};

/** The presets: classic plus a few changes (RULES.md §8). */
export const PRESETS = {
  classic: {},
  "seed-es": { short_turn: "recycle", recycle_shuffle: false, floor_at_zero: true },
  "seed-pt": { row_size: "by_boxes", match_end: "target:100" },
  "seed-it": { row_size: "by_boxes", match_end: "target:100" },
  "seed-fr": { row_size: 5 },
  "seed-fi": {},
  expert: { expert: true },
};

export const STRATEGIES = ["smart", "greedy", "random"];
export const LEVELS = ["beginner", "casual", "skilled", "expert", "machine"];

export function presetRules(name) {
  return { ...CLASSIC, ...(PRESETS[name] || {}) };
}

function same(a, b) {
  return Object.keys(CLASSIC).every((key) => String(a[key]) === String(b[key]));
}

/** The preset a rule set is exactly, or "" (custom). Classic before its twin seed-fi. */
export function presetOf(rules) {
  return Object.keys(PRESETS).find((name) => same(presetRules(name), rules)) || "";
}

/** A short line saying what is special about a rule set, for the table list and headers. */
export function rulesSummary(rules) {
  const preset = presetOf(rules);
  const parts = [preset ? t(`preset.${preset}`) : t("preset.custom")];
  const [kind, n] = String(rules.match_end).split(":");
  parts.push(t(kind === "target" ? "rules.summary.target" : "rules.summary.rounds", { n }));
  if (rules.expert) parts.push(t("option.expert"));
  return parts.join(" · ");
}

/**
 * The rule form: preset, every option with its explanation, seat count and public.
 * `values`: {rules, seats, public}; `onChange(settings)` gets
 * {preset, options, seats, public} whenever a control changes.
 * Returns the element; it keeps its own state.
 */
export function rulesForm(values, { onChange = () => {}, disabled = false, idPrefix = "rules" } = {}) {
  const state = { rules: { ...CLASSIC, ...values.rules }, seats: values.seats, public: values.public };
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
    Object.keys(PRESETS).map((name) => h("option", { value: name }, t(`preset.${name}`))),
  );
  const presetHelp = h("small", { class: "help", id: id("preset-help") });

  const controls = {};
  const option = (name, control, help = t(`option.${name}.help`)) => {
    controls[name] = control;
    control.id = id(name);
    control.setAttribute("aria-describedby", id(`${name}-help`));
    control.disabled = disabled;
    control.addEventListener("change", () => {
      state.rules[name] = readControl(name, control);
      refreshPreset();
      changed();
    });
    return h(
      "div",
      { class: ["field", control.type === "checkbox" ? "field-check" : null] },
      h("label", { for: control.id }, t(`option.${name}`)),
      control,
      h("small", { class: "help", id: id(`${name}-help`) }, help),
    );
  };

  const select = (values, label) => h("select", {}, values.map((value) => h("option", { value: String(value) }, label(value))));
  const check = () => h("input", { type: "checkbox" });
  const number = (min, max) => h("input", { type: "number", min, max, step: 1, inputmode: "numeric" });

  const matchKind = h(
    "select",
    { id: id("match_end-kind"), disabled, "aria-label": t("option.match_end") },
    h("option", { value: "rounds" }, t("match_end.rounds")),
    h("option", { value: "target" }, t("match_end.target")),
  );
  const matchN = h("input", {
    id: id("match_end"),
    type: "number",
    min: 1,
    max: 1000,
    step: 1,
    disabled,
    "aria-label": t("match_end.n"),
    "aria-describedby": id("match_end-help"),
  });
  const onMatch = () => {
    const n = Math.max(1, Number.parseInt(matchN.value, 10) || 1);
    state.rules.match_end = `${matchKind.value}:${n}`;
    refreshPreset();
    changed();
  };
  matchKind.addEventListener("change", onMatch);
  matchN.addEventListener("change", onMatch);

  const seats = number(2, 12);
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

  const form = h(
    "div",
    { class: "rules-form" },
    h(
      "div",
      { class: "field field-wide" },
      h("label", { for: presetSelect.id }, t("rules.preset")),
      presetSelect,
      presetHelp,
    ),
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
      "details",
      { class: "options", open: values.open || false },
      h("summary", {}, t("rules.options")),
      h(
        "div",
        { class: "options-grid" },
        option("row_size", select(["classic", "by_boxes", 1, 2, 3, 4, 5], (v) => t(`row_size.${v}`))),
        option("short_turn", select(["turn_remaining", "recycle"], (v) => t(`short_turn.${v}`))),
        option("recycle_shuffle", check()),
        option("stack_penalty", number(0, 10)),
        option("floor_at_zero", check()),
        option("scoring", select(["cards", "first_out"], (v) => t(`scoring.${v}`))),
        h(
          "div",
          { class: "field" },
          h("label", { for: matchN.id }, t("option.match_end")),
          h("span", { class: "inline" }, matchKind, matchN),
          h("small", { class: "help", id: id("match_end-help") }, t("option.match_end.help")),
        ),
        option("expert", check()),
      ),
    ),
  );

  function refreshPreset() {
    const preset = presetOf(state.rules);
    presetSelect.value = preset;
    presetHelp.textContent = t(preset ? `preset.${preset}.help` : "preset.custom.help");
  }

  function refreshControls() {
    for (const [name, control] of Object.entries(controls)) {
      if (document.activeElement === control) continue;
      if (control.type === "checkbox") control.checked = Boolean(state.rules[name]);
      else control.value = String(state.rules[name]);
    }
    const [kind, n] = String(state.rules.match_end).split(":");
    if (document.activeElement !== matchKind) matchKind.value = kind;
    if (document.activeElement !== matchN) matchN.value = n;
    if (document.activeElement !== seats) seats.value = String(state.seats);
    isPublic.checked = Boolean(state.public);
    refreshPreset();
  }

  /** Show new values (the table changed) without disturbing the control being edited. */
  form.update = (next) => {
    state.rules = { ...CLASSIC, ...next.rules };
    state.seats = next.seats;
    state.public = next.public;
    refreshControls();
  };
  form.settings = () => settingsOf(state);
  refreshControls();
  return form;
}

function readControl(name, control) {
  if (control.type === "checkbox") return control.checked;
  if (name === "stack_penalty") return Math.min(10, Math.max(0, Number.parseInt(control.value, 10) || 0));
  if (name === "row_size") return /^\d$/.test(control.value) ? Number(control.value) : control.value;
  return control.value;
}

/** What the server needs: a preset and the options that differ from it. */
function settingsOf(state) {
  const preset = presetOf(state.rules) || "classic";
  const base = presetRules(preset);
  const options = {};
  for (const key of Object.keys(CLASSIC)) {
    if (String(base[key]) !== String(state.rules[key])) options[key] = state.rules[key];
  }
  return { preset, options, seats: state.seats, public: state.public };
}
