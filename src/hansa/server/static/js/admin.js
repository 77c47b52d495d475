// The moderation page (/admin), for accounts marked admin (`hansa admin make-admin NAME`): the reported chat
// messages (hide the message, mark the report dealt with), an account's chat mute and disabling, the log of every
// act.  Everything goes through /api/admin/... (docs/api.md, "Table talk"); anyone else sees a short refusal.

import { api } from "./api.js";
import { $, clear, h } from "./dom.js";
import { errorMessage, initLanguage, language, t } from "./i18n.js";
import { topBar } from "./club.js";

const el = {
  denied: $("#admin-denied"), error: $("#admin-error"), reports: $("#admin-reports"), list: $("#admin-report-list"),
  all: $("#admin-all"), accounts: $("#admin-accounts"), name: $("#admin-name"), note: $("#admin-note"),
  result: $("#admin-account-result"), log: $("#admin-log"), logList: $("#admin-log-list"),
};

function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : d.toLocaleString(language(), { dateStyle: "short", timeStyle: "short" });
}

function showError(err) {
  el.error.textContent = err ? errorMessage(err) : "";
  el.error.hidden = !err;
}

function reportRow(r) {
  const hide = h("button", { type: "button", class: "small hide-btn", text: t("admin.hide"), disabled: r.hidden || r.n === null });
  hide.addEventListener("click", async () => {
    try {
      await api.adminHide(r.game, r.n, true);
      await loadAll();
    } catch (err) {
      showError(err);
    }
  });
  const resolve = h("button", { type: "button", class: "small resolve-btn", text: t("admin.resolve"), disabled: !!r.resolved });
  resolve.addEventListener("click", async () => {
    try {
      await api.adminResolve(r.id);
      await loadAll();
    } catch (err) {
      showError(err);
    }
  });
  return h("article", { class: `game-item admin-report${r.resolved ? " resolved" : ""}`, "data-id": String(r.id) },
    h("div", { class: "admin-report-head" },
      h("b", { text: r.author }),
      " · ",
      h("a", { href: `/game/${encodeURIComponent(r.game)}`, text: t("admin.gameMessage", { game: r.game, n: r.n ?? "?" }) }),
      r.hidden ? h("span", { class: "tag", text: t("admin.hidden") }) : null,
      r.resolved ? h("span", { class: "tag", text: t("admin.resolvedBy", { who: r.resolved_by || "" }) }) : null),
    h("p", { class: "admin-text", text: r.text }),
    h("p", { class: "muted admin-meta", text: t("admin.reportedBy", { who: r.reporter, when: when(r.at), reason: r.reason || t("admin.noReason") }) }),
    h("div", { class: "admin-actions" }, hide, resolve));
}

async function loadReports() {
  const data = await api.adminReports(el.all.checked);
  clear(el.list);
  if (!data.reports.length) el.list.append(h("p", { class: "empty-state muted", text: t("admin.noReports") }));
  else el.list.append(...data.reports.map(reportRow));
}

/** A logged act in the page's language (its code when the page does not know it). */
function actionText(action) {
  const key = `admin.action.${action}`;
  const text = t(key);
  return text === key ? action : text;
}

async function loadLog() {
  const data = await api.adminLog();
  clear(el.logList);
  if (!data.entries.length) {
    el.logList.append(h("p", { class: "empty-state muted", text: t("admin.noLog") }));
    return;
  }
  el.logList.append(h("ul", { class: "admin-log-list" }, ...data.entries.map((e) =>
    h("li", { class: "admin-log-entry" }, h("span", { class: "muted", text: when(e.at) }), " ",
      h("b", { text: e.actor }), " ", h("span", { class: "admin-action", "data-action": e.action, text: actionText(e.action) }), " ",
      h("code", { text: e.target }),
      e.note ? h("span", { class: "muted", text: ` — ${e.note}` }) : null))));
}

async function loadAll() {
  showError(null);
  await loadReports();
  await loadLog();
}

async function act(which) {
  const name = el.name.value.trim();
  if (!name) {
    el.name.focus();
    return;
  }
  const note = el.note.value.trim() || undefined;
  try {
    if (which === "mute" || which === "unmute") await api.adminMute(name, which === "mute");
    else await api.adminDisable(name, which === "disable", note);
    el.result.textContent = t(`admin.done.${which}`, { name });
    showError(null);
    await loadLog();
  } catch (err) {
    el.result.textContent = "";
    showError(err);
  }
}

async function main() {
  await initLanguage();
  topBar($("#top-actions"));
  for (const which of ["mute", "unmute", "disable", "enable"]) $(`#admin-${which}`).addEventListener("click", () => act(which));
  el.all.addEventListener("change", () => loadReports().catch(showError));
  try {
    await loadAll();
    el.reports.hidden = false;
    el.accounts.hidden = false;
    el.log.hidden = false;
  } catch (err) {
    if (err.status === 401 || err.status === 403) el.denied.hidden = false;
    else showError(err);
  }
  document.body.dataset.ready = "1";
}

main();
