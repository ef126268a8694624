// Every text the client shows, in seven languages (i18n/<lang>.json, the same keys in each).
// A text that depends on a number is a family of keys, one per plural form of the language
// ("own.score.one", "own.score.other"): plural() picks the form with Intl.PluralRules.
// Names in a sentence are joined by listOf() (Intl.ListFormat: "Ben and Di").

import { storage } from "./storage.js";

/** The languages, each named in itself. */
export const LANGUAGES = {
  en: "English",
  es: "Español",
  pt: "Português",
  it: "Italiano",
  fr: "Français",
  fi: "Suomi",
  de: "Deutsch",
};

const tables = {};
let current = "en";
const listeners = new Set();

/** The browser's preferred language among ours (English if none fits). */
export function browserLanguage() {
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  for (const tag of wanted) {
    const code = String(tag || "").toLowerCase().split("-")[0];
    if (code in LANGUAGES) return code;
  }
  return "en";
}

async function load(lang) {
  if (!tables[lang]) {
    const response = await fetch(`/i18n/${lang}.json`);
    if (!response.ok) throw new Error(`no texts for ${lang}`);
    tables[lang] = await response.json();
  }
  return tables[lang];
}

/** Load the saved (or the browser's) language; English stays loaded as the fallback. */
export async function startLanguage() {
  const saved = storage.language();
  const lang = saved && saved in LANGUAGES ? saved : browserLanguage();
  await load("en");
  await setLanguage(lang, { save: false });
}

export async function setLanguage(lang, { save = true } = {}) {
  if (!(lang in LANGUAGES)) lang = "en";
  await load(lang);
  current = lang;
  if (save) storage.setLanguage(lang);
  document.documentElement.lang = lang;
  for (const listener of listeners) listener(lang);
}

export function language() {
  return current;
}

export function onLanguage(listener) {
  listeners.add(listener);
}

/**
 * The text of `key` in the current language, with `{name}` placeholders filled from `vars`.
 * A missing key shows as ⟦key⟧, so it cannot go unnoticed (the browser tests look for it).
 */
export function t(key, vars = {}) {
  let text = tables[current]?.[key];
  if (text === undefined) {
    console.warn(`missing text ${key} for ${current}`);
    text = tables.en?.[key];
  }
  if (text === undefined) return `⟦${key}⟧`;
  return text.replace(/\{(\w+)\}/g, (match, name) => (name in vars ? String(vars[name]) : match));
}

/** Whether a key exists (for optional texts such as server error codes). */
export function has(key) {
  return tables[current]?.[key] !== undefined || tables.en?.[key] !== undefined;
}

/** The locale of Intl's rules for a language, where the texts are one country's: the
 *  Portuguese ones are Portugal's ("telemóvel", "está a jogar"), whose 0 is plural. */
const INTL_LOCALES = { pt: "pt-PT" };
const pluralRules = new Map(); // "language type" -> Intl.PluralRules

function intlLocale() {
  return INTL_LOCALES[current] || current;
}

/**
 * The text of the family `key` for the number `count`: `key.<form>`, the form being what
 * Intl.PluralRules says for `count` in the current language ("one", "other", …; "other"
 * where the language has no text of its own for a form), filled from `vars` as by t().
 * The whole sentence is in each form, so word order and agreement stay the language's.
 * With `type` "ordinal", the forms of places: "1st", "2nd", "3rd", "4th".
 */
export function plural(key, count, vars = {}, type = "cardinal") {
  const rules = `${current} ${type}`;
  if (!pluralRules.has(rules)) pluralRules.set(rules, new Intl.PluralRules(intlLocale(), { type }));
  const form = pluralRules.get(rules).select(Number(count));
  const own = tables[current]?.[`${key}.${form}`] !== undefined || tables.en?.[`${key}.${form}`] !== undefined;
  return t(own ? `${key}.${form}` : `${key}.other`, vars);
}

/** Names (or any words) joined as the current language joins them: "Ben, Di and Ed". */
export function listOf(items) {
  return new Intl.ListFormat(intlLocale(), { style: "long", type: "conjunction" }).format(items.map(String));
}
