// The interface in the players' languages: English, Portuguese, Italian, Spanish and Czech, the languages of the
// published rulebooks.  Every text is a key in /static/i18n/<lang>.json (one file per language, flat keys, {name}
// parameters); a missing key falls back to English.  Counted texts have one key per plural category of the
// language (key.one, key.few, key.many, key.other), chosen with Intl.PluralRules.
//
// The language: ?lang= in the address, else the one chosen before (localStorage "hansa.lang", shared with the rules
// page), else the first of the browser's languages we have, else English.  Static HTML is translated through
// data-i18n="key" (text) and data-i18n-attr="attribute:key,..." (e.g. placeholder, title, aria-label).
//
// A touch screen without a mouse (a phone, a tablet) is told to tap, not to click, and no keys are named there: a
// text with a ``key.touch`` variant shows that variant on such a screen.

export const LANGUAGES = { en: "English", pt: "Português", it: "Italiano", es: "Español", cs: "Čeština" };
const STORE = "hansa.lang";

let current = "en";
let strings = {};
let english = {};
let plural = new Intl.PluralRules("en");
// "(hover: none) and (pointer: coarse)": the main pointer is a finger (a phone or tablet; a touch laptop with a mouse
// or touchpad is not one).  Read on every text, so a tablet that gets a mouse follows on the next redraw.
const TOUCH = typeof matchMedia === "function" ? matchMedia("(hover: none) and (pointer: coarse)") : null;

/** Whether this screen is worked with a finger (then instructions say tap and name no keys). */
export function touchScreen() {
  return !!(TOUCH && TOUCH.matches);
}

export function detectLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && LANGUAGES[asked]) return asked;
  try {
    const saved = localStorage.getItem(STORE);
    if (saved && LANGUAGES[saved]) return saved;
  } catch {
    /* no storage: use the browser's */
  }
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).toLowerCase().split("-")[0];
    if (LANGUAGES[base]) return base;
  }
  return "en";
}

async function fetchStrings(lang) {
  const res = await fetch(`/static/i18n/${lang}.json`);
  if (!res.ok) throw new Error(`no strings for ${lang}`);
  return res.json();
}

/** Load the language (detected unless given) and translate the page's static texts. */
export async function initLanguage(lang = detectLanguage()) {
  english = await fetchStrings("en");
  current = lang;
  try {
    strings = lang === "en" ? english : await fetchStrings(lang);
  } catch {
    current = "en";
    strings = english;
  }
  plural = new Intl.PluralRules(current);
  document.documentElement.lang = current;
  translateDom(document);
  return current;
}

export function language() {
  return current;
}

/** Choose a language for this browser and show the page in it. */
export function setLanguage(lang) {
  if (!LANGUAGES[lang]) return;
  let stored = true;
  try {
    localStorage.setItem(STORE, lang);
  } catch {
    stored = false; // no storage: the choice travels in the address
  }
  const url = new URL(location.href);
  if (stored) url.searchParams.delete("lang");
  else url.searchParams.set("lang", lang);
  // The same address (a game page's #token fragment included) would only move within the page: reload it.
  if (url.href === location.href) location.reload();
  else location.replace(url.href);
}

/** Fill a template's {names}. */
export function fmt(template, params = {}) {
  return String(template).replace(/\{(\w+)\}/g, (_, k) => (params[k] === undefined || params[k] === null ? `{${k}}` : String(params[k])));
}

/** The text of ``key`` in the current language, with its {parameters} filled in. */
export function t(key, params) {
  const touch = touchScreen() ? strings[`${key}.touch`] ?? english[`${key}.touch`] : undefined;
  const s = touch ?? strings[key] ?? english[key];
  if (s === undefined) return key;
  return params ? fmt(s, params) : s;
}

/** A counted text: ``key.one``, ``key.few``, ``key.many`` or ``key.other`` for ``n``, with {n} and the rest. */
export function tn(key, n, params = {}) {
  const form = plural.select(n);
  const k = [`${key}.${form}`, `${key}.other`].find((x) => strings[x] !== undefined || english[x] !== undefined) || `${key}.other`;
  return t(k, { n, ...params });
}

/** Translate static texts: data-i18n="key" sets the text, data-i18n-attr="placeholder:key,title:key" attributes. */
export function translateDom(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of el.dataset.i18nAttr.split(",")) {
      const [attr, key] = pair.split(":").map((x) => x.trim());
      if (attr && key) el.setAttribute(attr, t(key));
    }
  }
}

/** A <select> of the five languages; choosing one reloads the page in it. */
export function languagePicker(doc = document) {
  const select = doc.createElement("select");
  select.className = "lang-picker";
  select.setAttribute("aria-label", t("common.language"));
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const opt = doc.createElement("option");
    opt.value = code;
    opt.textContent = name;
    if (code === current) opt.selected = true;
    select.append(opt);
  }
  select.addEventListener("change", () => setLanguage(select.value));
  return select;
}

/** What went wrong, by its kind, in the player's language: the rule a move broke, the HTTP status of the server's
 * answer (error.<status>, else a general server or request error), or a network failure; null when unknown. */
export function errorHead(err) {
  const status = err && typeof err.status === "number" ? err.status : 0;
  if (status && err.rule) return t("error.rule");
  if (status) {
    const key = `error.${status}`;
    if (strings[key] !== undefined || english[key] !== undefined) return t(key);
    return t(status >= 500 ? "error.server" : "error.request");
  }
  if (err instanceof TypeError) return t("error.network");
  return null;
}

/** One line for an error: its kind in the player's language, the server's own (English) words after it. */
export function errorMessage(err) {
  const head = errorHead(err);
  const detail = err && err.message ? String(err.message) : String(err);
  return head && head !== detail ? `${head} (${detail})` : detail;
}
