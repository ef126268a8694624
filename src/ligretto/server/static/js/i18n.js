// Every text the client shows, in seven languages (i18n/<lang>.json, the same keys in each).

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
