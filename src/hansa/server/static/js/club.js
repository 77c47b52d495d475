// What the leaderboard and the profile pages share: a rating with its provisional mark, a rated player (an account
// or a bot level) as a link to its profile, the page's top bar.

import { h } from "./dom.js";
import { language, languagePicker, t } from "./i18n.js";
import { botLabel } from "./clock.js";
import { mountAccount, profileUrl } from "./account.js";

/** /bot/SPEC, the profile page of a bot level. */
export function botUrl(spec) {
  return `/bot/${encodeURIComponent(spec)}`;
}

/** A rating {rating, provisional}: "1012", or "1012?" with a tooltip when provisional. */
export function ratingTag(r) {
  if (!r) return h("span", { class: "rating muted", text: "—" });
  if (!r.provisional) return h("span", { class: "rating", text: String(r.rating) });
  return h("span", { class: "rating provisional", title: t("club.provisional"), "aria-label": t("club.provisionalAria", { rating: r.rating }) },
    String(r.rating), h("span", { class: "prov-mark", "aria-hidden": "true", text: "?" }));
}

/** A rated player {kind, name, deleted} | {kind: "bot", bot}: a link to its profile (a deleted account: no link). */
export function whoTag(p) {
  if (p.kind === "bot") {
    return h("a", { class: "who bot", href: botUrl(p.bot) },
      h("span", { class: "bot-mark", text: t("club.botTag") }), " ", h("span", { class: "pname", text: botLabel(p.bot) }));
  }
  if (p.deleted || !p.name) return h("span", { class: "who deleted muted", text: t("club.deletedPlayer") });
  return h("a", { class: "who", href: profileUrl(p.name) }, h("span", { class: "pname", text: p.name }));
}

/** A date like "3 March 2026" in the page's language. */
export function dateText(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return new Intl.DateTimeFormat(language(), { day: "numeric", month: "long", year: "numeric" }).format(d);
}

/** A share 0..1 as "42 %" in the page's language. */
export function percent(share) {
  return new Intl.NumberFormat(language(), { style: "percent", maximumFractionDigits: 0 }).format(share);
}

/** The language picker and the account in the top bar's nav. */
export function topBar(nav) {
  nav.prepend(languagePicker());
  mountAccount(nav);
}
