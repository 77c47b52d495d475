// The table chat (docs/api.md, "Table chat"): a game's messages beside the table (the game page's side column, a
// tab on phones) and beside the replay.  Messages are numbered 1, 2, ... per game: the panel reads them once, then
// takes the ones the game's WebSocket pushes, merging by number (never one twice, always in order) and reading any
// gap it sees (after a reconnection).
//
// A message's words are only ever put in the page as text (h(..., {text}) and text nodes): nothing a player types is
// interpreted as HTML.  Preset phrases travel as keys and are worded in each reader's language.  A reader may mute an
// author (for themselves: kept in localStorage by the author's name) and report a message of someone else.

import { api, ApiError } from "./api.js";
import { h, clear, put } from "./dom.js";
import { errorHead, language, t, tn } from "./i18n.js";

/** The longest message the server takes by default (``--chat-max``); the field says it, the server decides. */
export const CHAT_MAX = 300;
const COUNT_FROM = CHAT_MAX - 50; // the counter shows from here on
const MUTED_KEY = "hansa.chatMuted";
const COLLAPSED_KEY = "hansa.chatCollapsed";

function loadMuted() {
  try {
    const list = JSON.parse(localStorage.getItem(MUTED_KEY) || "[]");
    return new Set(Array.isArray(list) ? list.filter((x) => typeof x === "string") : []);
  } catch {
    return new Set();
  }
}

function saveMuted(muted) {
  try {
    localStorage.setItem(MUTED_KEY, JSON.stringify([...muted]));
  } catch {
    /* private mode: muting lasts as long as the page */
  }
}

/** The chat panel in ``root`` (an empty element).
 *
 * options: gameId; token (the seat token, or null); readOnly (the replay: no field, no reports); phoneTab (a
 * function: whether the phone's chat tab is the one shown, or null on pages without tabs); onUnread(n).
 */
export class ChatPanel {
  constructor(root, { gameId, token = null, readOnly = false, phoneTab = null, onUnread = () => {} }) {
    this.root = root;
    this.gameId = gameId;
    this.token = token;
    this.readOnly = readOnly;
    this.phoneTab = phoneTab;
    this.onUnread = onUnread;
    this.messages = new Map(); // n -> message
    this.items = new Map(); // n -> <li>
    this.last = 0; // every message 1..last is here
    this.unread = 0;
    this.players = [];
    this.you = [];
    this.account = null;
    this.spectatorsWrite = false;
    this.presets = [];
    this.loaded = false;
    this.muted = loadMuted();
    this.reported = new Set();
    this.sending = false;
    this.waitTimer = null;
    this.loading = null;
    this.phone = window.matchMedia("(max-width: 760px)");
    let collapsed = false;
    try {
      collapsed = !readOnly && localStorage.getItem(COLLAPSED_KEY) === "1";
    } catch {
      collapsed = false;
    }
    this.build(collapsed);
  }

  build(collapsed) {
    const root = this.root;
    root.classList.add("chat-panel");
    root.classList.toggle("collapsed", collapsed);
    this.badge = h("span", { class: "chat-badge", hidden: true });
    this.toggle = h(
      "button",
      { type: "button", class: "chat-toggle", "aria-expanded": String(!collapsed), title: t("chat.toggle"), onclick: () => this.setCollapsed(!root.classList.contains("collapsed")) },
      h("span", { class: "chat-caret", "aria-hidden": "true" }),
      h("span", { class: "chat-title", text: t("chat.title") }),
      this.badge,
    );
    this.list = h("ol", { class: "chat-list", "aria-live": "polite", "aria-label": t("chat.title") });
    this.empty = h("p", { class: "chat-empty muted", text: t("chat.empty") });
    this.note = h("p", { class: "chat-note muted", hidden: true });
    this.presetBox = h("div", { class: "chat-presets", role: "group", "aria-label": t("chat.presets"), hidden: true });
    this.input = h("input", { type: "text", class: "chat-input", maxlength: String(CHAT_MAX), placeholder: t("chat.placeholder"), "aria-label": t("chat.placeholder"), autocomplete: "off", enterkeyhint: "send" });
    this.counter = h("span", { class: "chat-counter muted", "aria-live": "polite", hidden: true });
    this.sendBtn = h("button", { type: "submit", class: "chat-send", text: t("chat.send") });
    this.form = h("form", { class: "chat-form", autocomplete: "off", hidden: true }, this.input, this.counter, this.sendBtn);
    this.error = h("p", { class: "chat-error", role: "alert", hidden: true });
    this.form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const text = this.input.value.trim();
      if (text) this.send({ text });
    });
    this.input.addEventListener("input", () => this.count());
    this.body = h("div", { class: "chat-body" }, this.empty, this.list, this.note, this.presetBox, this.form, this.error);
    put(clear(root), h("h2", { class: "chat-head" }, this.toggle), this.body);
  }

  // ---------------------------------------------------------------- who reads

  /** The players (names, colours), the seats this page plays and the signed-in account (or null). */
  setContext({ players, you, account }) {
    const before = JSON.stringify([this.you, this.account && this.account.name, this.players.map((p) => p.colour)]);
    this.players = players || [];
    this.you = you || [];
    this.account = account || null;
    if (JSON.stringify([this.you, this.account && this.account.name, this.players.map((p) => p.colour)]) !== before) {
      for (const [n, li] of this.items) this.fill(li, this.messages.get(n));
      this.controls();
    }
  }

  canWrite() {
    if (this.readOnly) return false;
    return this.you.length > 0 || (this.spectatorsWrite && !!this.account);
  }

  canReport() {
    return !this.readOnly && (this.you.length > 0 || !!this.account);
  }

  own(msg) {
    if (msg.seat !== null && msg.seat !== undefined) return this.you.includes(msg.seat);
    return !!(this.account && msg.account && msg.author === this.account.name);
  }

  /** The text field and the presets for a writer; a short note for a reader who may not write. */
  controls() {
    const write = this.canWrite();
    this.form.hidden = !write;
    this.presetBox.hidden = !write || this.presets.length === 0;
    let note = null;
    if (!write && !this.readOnly && this.loaded) note = this.spectatorsWrite ? t("chat.signInToWrite") : t("chat.playersOnly");
    this.note.hidden = !note;
    this.note.textContent = note || "";
    if (this.presetBox.childElementCount !== this.presets.length) {
      clear(this.presetBox);
      for (const key of this.presets) {
        this.presetBox.append(h("button", { type: "button", class: "chat-preset-btn", "data-preset": key, text: t(`chat.preset.${key}`), onclick: () => this.send({ preset: key }) }));
      }
    }
  }

  // ---------------------------------------------------------------- reading

  /** Read the messages after the last one here (the first time: all of them). */
  load() {
    if (this.loading) return this.loading;
    const counting = this.loaded; // the messages there were when the page opened are not "unread"
    this.loading = (async () => {
      try {
        for (let pages = 0; pages < 50; pages++) {
          const data = await api.chat(this.gameId, this.last);
          this.spectatorsWrite = !!data.spectators_write;
          this.presets = Array.isArray(data.presets) ? data.presets : [];
          for (const msg of data.messages || []) this.add(msg, counting);
          if (!data.messages || data.messages.length < 200) break;
        }
        this.loaded = true;
        this.controls();
      } finally {
        this.loading = null;
      }
    })();
    return this.loading;
  }

  /** A message the socket pushed: added in its place; a gap before it is read. */
  receive(msg) {
    if (!msg || typeof msg.n !== "number") return;
    if (!this.loaded) return; // the first read brings it
    this.add(msg, true);
    if (msg.n > this.last + 1) this.load().catch(() => null);
  }

  /** An operator hid message ``n``: its words go. */
  hideMessage(n) {
    const msg = this.messages.get(n);
    if (!msg) return;
    Object.assign(msg, { hidden: true, text: null, preset: null });
    this.fill(this.items.get(n), msg);
  }

  add(msg, counting) {
    if (this.messages.has(msg.n)) return;
    this.messages.set(msg.n, msg);
    while (this.messages.has(this.last + 1)) this.last += 1;
    const li = h("li", { class: "chat-msg", "data-n": String(msg.n) });
    this.fill(li, msg);
    this.items.set(msg.n, li);
    let next = null;
    for (const [n, other] of this.items) if (n > msg.n && (!next || n < Number(next.dataset.n))) next = other;
    const stick = this.atBottom();
    this.list.insertBefore(li, next);
    this.empty.hidden = true;
    if (stick || this.own(msg)) this.list.scrollTop = this.list.scrollHeight;
    if (counting && !this.own(msg) && !this.muted.has(msg.author) && !this.visible()) {
      this.unread += 1;
      this.showUnread();
    }
  }

  atBottom() {
    return this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 30;
  }

  colour(msg) {
    const p = msg.seat !== null && msg.seat !== undefined ? this.players[msg.seat] : null;
    return p && p.colour ? p.colour : null;
  }

  /** A message's row: the author (in the seat's colour; spectators marked), the time, the words; muted or hidden. */
  fill(li, msg) {
    clear(li);
    const own = this.own(msg);
    const spectator = msg.seat === null || msg.seat === undefined;
    const muted = !own && this.muted.has(msg.author);
    li.className = `chat-msg${own ? " mine" : ""}${spectator ? " by-spectator" : ""}${msg.preset ? " is-preset" : ""}${msg.hidden ? " is-hidden" : ""}${muted ? " is-muted" : ""}`;
    const colour = this.colour(msg);
    if (colour) li.style.setProperty("--pc", colour);
    else li.style.removeProperty("--pc");
    const at = new Date(msg.at);
    const valid = !Number.isNaN(at.getTime());
    const time = h("time", {
      class: "chat-time",
      datetime: msg.at,
      title: valid ? at.toLocaleString(language()) : "",
      text: valid ? at.toLocaleTimeString(language(), { hour: "2-digit", minute: "2-digit" }) : "",
    });
    if (muted) {
      put(li, h("span", { class: "chat-muted-line muted", text: t("chat.mutedLine", { name: msg.author }) }), " ",
        h("button", { type: "button", class: "chat-unmute link-btn", text: t("chat.unmute"), onclick: () => this.mute(msg.author, false) }));
      return;
    }
    const author = h("span", { class: "chat-author" }, h("span", { class: "chat-swatch", "aria-hidden": "true" }), h("span", { class: "chat-name", text: msg.author }));
    const tags = [];
    if (spectator) tags.push(h("span", { class: "chat-tag spectator-tag", text: t("chat.spectator") }));
    if (own) tags.push(h("span", { class: "chat-tag you-tag", text: t("chat.you") }));
    if (this.reported.has(msg.n)) tags.push(h("span", { class: "chat-tag reported-tag", text: t("chat.reported") }));
    let words;
    if (msg.hidden) words = h("span", { class: "chat-words chat-hidden muted", text: t("chat.hidden") });
    else if (msg.preset) words = h("span", { class: "chat-words chat-preset", lang: language(), text: t(`chat.preset.${msg.preset}`) });
    else words = h("span", { class: "chat-words", dir: "auto", text: msg.text || "" });
    const head = h("span", { class: "chat-line-head" }, author, ...tags, time);
    put(li, head, words);
    if (!own && !this.readOnly) {
      const more = h("button", { type: "button", class: "chat-more", title: t("chat.actions"), "aria-label": t("chat.actions"), "aria-haspopup": "true", "aria-expanded": "false", text: "⋯" });
      more.addEventListener("click", () => this.menu(li, msg, more));
      head.append(more);
    }
  }

  // ---------------------------------------------------------------- mute and report

  mute(name, on) {
    if (on) this.muted.add(name);
    else this.muted.delete(name);
    saveMuted(this.muted);
    for (const [n, li] of this.items) {
      const msg = this.messages.get(n);
      if (msg.author === name) this.fill(li, msg);
    }
  }

  menu(li, msg, btn) {
    const open = li.querySelector(".chat-menu");
    if (open) {
      open.remove();
      btn.setAttribute("aria-expanded", "false");
      return;
    }
    btn.setAttribute("aria-expanded", "true");
    const box = h("div", { class: "chat-menu", role: "group" });
    const close = () => {
      box.remove();
      btn.setAttribute("aria-expanded", "false");
    };
    box.append(h("button", { type: "button", class: "chat-mute", text: t("chat.mute", { name: msg.author }), onclick: () => this.mute(msg.author, true) }));
    if (this.canReport() && !msg.hidden) {
      if (this.reported.has(msg.n)) box.append(h("span", { class: "muted", text: t("chat.reported") }));
      else box.append(h("button", { type: "button", class: "chat-report", text: t("chat.report"), onclick: () => this.reportForm(box, msg, close) }));
    }
    box.append(h("button", { type: "button", class: "chat-menu-close link-btn", text: t("chat.cancel"), onclick: close }));
    li.append(box);
  }

  reportForm(box, msg, close) {
    clear(box);
    const reason = h("input", { type: "text", class: "chat-reason", maxlength: "200", placeholder: t("chat.reason"), "aria-label": t("chat.reason") });
    const err = h("span", { class: "chat-error", role: "alert", hidden: true });
    const submit = h("button", { type: "submit", class: "chat-report-send", text: t("chat.reportSend") });
    const form = h("form", { class: "chat-report-form" }, reason, submit, h("button", { type: "button", class: "link-btn", text: t("chat.cancel"), onclick: close }), err);
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      submit.disabled = true;
      try {
        await api.chatReport(this.gameId, this.token, msg.n, reason.value.trim() || null);
        this.reported.add(msg.n);
        close();
        this.fill(this.items.get(msg.n), msg);
      } catch (error) {
        submit.disabled = false;
        err.textContent = this.errorText(error);
        err.hidden = false;
      }
    });
    box.append(form);
    reason.focus();
  }

  // ---------------------------------------------------------------- writing

  count() {
    const n = this.input.value.length;
    this.counter.hidden = n < COUNT_FROM;
    this.counter.textContent = `${n}/${CHAT_MAX}`;
    this.counter.classList.toggle("full", n >= CHAT_MAX);
  }

  errorText(err) {
    const status = err instanceof ApiError ? err.status : 0;
    if (status === 429) return tn("chat.err.rate", err.retryAfter || 1);
    if (status === 401) return t("chat.err.signIn");
    if (status === 400) return `${t("chat.err.invalid")} (${err.message})`;
    if (status === 403) return `${t("chat.err.forbidden")} (${err.message})`;
    const head = errorHead(err);
    return head ? `${head} (${err.message})` : String(err.message || err);
  }

  async send(body) {
    if (this.sending || this.waitTimer) return;
    this.sending = true;
    this.sendBtn.disabled = true;
    try {
      const answer = await api.chatSend(this.gameId, this.token, body);
      if (body.text !== undefined) {
        this.input.value = "";
        this.count();
      }
      this.clearError();
      if (answer && answer.message) this.add(answer.message, false);
      this.list.scrollTop = this.list.scrollHeight;
    } catch (err) {
      this.showError(err);
    } finally {
      this.sending = false;
      if (!this.waitTimer) this.sendBtn.disabled = false;
    }
  }

  showError(err) {
    this.error.textContent = this.errorText(err);
    this.error.dataset.status = err instanceof ApiError ? String(err.status) : "";
    this.error.hidden = false;
    if (err instanceof ApiError && err.status === 429) {
      // the typed words stay; sending waits as long as the server said, counting down
      let left = err.retryAfter || 1;
      this.sendBtn.disabled = true;
      for (const b of this.presetBox.querySelectorAll("button")) b.disabled = true;
      clearInterval(this.waitTimer);
      this.waitTimer = setInterval(() => {
        left -= 1;
        if (left > 0) {
          this.error.textContent = tn("chat.err.rate", left);
          return;
        }
        clearInterval(this.waitTimer);
        this.waitTimer = null;
        this.sendBtn.disabled = false;
        for (const b of this.presetBox.querySelectorAll("button")) b.disabled = false;
        this.clearError();
      }, 1000);
    }
  }

  clearError() {
    this.error.hidden = true;
    this.error.textContent = "";
  }

  // ---------------------------------------------------------------- unread

  visible() {
    if (this.phone.matches && this.phoneTab) return this.phoneTab();
    return !this.root.classList.contains("collapsed") && !this.root.hidden;
  }

  setCollapsed(collapsed) {
    this.root.classList.toggle("collapsed", collapsed);
    this.toggle.setAttribute("aria-expanded", String(!collapsed));
    try {
      localStorage.setItem(COLLAPSED_KEY, collapsed ? "1" : "0");
    } catch {
      /* not kept */
    }
    if (!collapsed) {
      this.seen();
      this.list.scrollTop = this.list.scrollHeight;
    }
  }

  /** The reader sees the chat now (expanded, or the phone's chat tab chosen): nothing unread. */
  seen() {
    this.unread = 0;
    this.showUnread();
    this.list.scrollTop = this.list.scrollHeight;
  }

  showUnread() {
    this.badge.hidden = this.unread === 0;
    this.badge.textContent = this.unread ? String(this.unread) : "";
    this.badge.title = this.unread ? tn("chat.unread", this.unread) : "";
    this.onUnread(this.unread);
  }
}
