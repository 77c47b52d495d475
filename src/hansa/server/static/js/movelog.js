// The table's move log: the whole game, newest at the bottom.
//
// Every view brings the last moves (view.log, up to 60); the log keeps every entry it has seen, numbered by `n`
// and contiguous (no gaps, no duplicates): new moves are appended, moves taken back removed, and older moves load
// on demand, a page at a time, from GET /api/games/{id}/log when the reader scrolls to the top or presses
// "Earlier moves" (the entry being read stays where it was).  The log follows the newest move unless the reader
// has scrolled up; then new moves wait below behind a "new moves" button that scrolls down and follows again.

import { h, clear } from "./dom.js";
import { t } from "./i18n.js";
import { logItem, logTurnHead } from "./panels.js";

const PAGE = 200; // moves per request for earlier moves (the server allows up to 1,000)
const NEAR_TOP = 80; // px from the top where earlier moves start loading
const AT_BOTTOM = 4; // px from the bottom that still count as "at the newest move"

const same = (a, b) => a.move === b.move && a.seat === b.seat && (a.by || null) === (b.by || null);

export class MoveLog {
  /**
   * box: the scrolling element; newBtn: the "new moves" button; loadPage(start, limit) -> {log: [...]};
   * context() -> the captions' ctx; onHover(entry | null).
   */
  constructor(box, newBtn, { loadPage, context, onHover }) {
    this.box = box;
    this.newBtn = newBtn;
    this.loadPage = loadPage;
    this.context = context;
    this.onHover = onHover;
    this.entries = []; // contiguous, oldest first
    this.items = new Map(); // n -> <li>
    this.follow = true;
    this.lastTop = 0;
    this.unseen = 0;
    this.loading = false;
    this.failed = false;
    this.notes = []; // lines waiting for their move (note())
    clear(box);
    this.top = h("div", { class: "log-top" });
    this.list = h("ol", { class: "log-list" });
    box.append(this.top, this.list);
    box.addEventListener("scroll", () => this.onScroll(), { passive: true });
    newBtn.addEventListener("click", () => this.toBottom());
    // While it follows, the log stays at the bottom when the box or its lines change size (the phone's tab shown
    // again, the side column laid out anew, lines wrapping once the fonts are in).
    if (window.ResizeObserver) {
      const watch = new ResizeObserver(() => this.follow && this.scrollDown());
      watch.observe(box);
      watch.observe(this.list);
    }
  }

  get first() {
    return this.entries.length ? this.entries[0].n : null;
  }

  get last() {
    return this.entries.length ? this.entries[this.entries.length - 1].n : 0;
  }

  /** The newest view's log (its last moves) and version (the number of moves). */
  update(log, version) {
    const before = this.last;
    if (this.entries.length && this.last > version) this.removeFrom(version + 1); // taken back
    // A move taken back and another made between two views: from the first that differs, the view's word counts.
    for (const e of log) {
      const i = this.first === null ? -1 : e.n - this.first;
      if (i >= 0 && i < this.entries.length && !same(this.entries[i], e)) {
        this.removeFrom(e.n);
        break;
      }
    }
    const fresh = log.filter((e) => e.n > this.last);
    if (fresh.length && this.entries.length && fresh[0].n > this.last + 1) {
      // More moves came than a view holds since the last one: start again from the view's (earlier ones load).
      this.entries = [];
      this.items.clear();
      clear(this.list);
    }
    if (fresh.length) this.append(fresh);
    for (const x of this.notes) x.after = Math.min(x.after, version); // moves taken back meanwhile
    this.flushNotes();
    const added = this.last - Math.min(before, this.last);
    this.renderTop();
    if (this.follow) this.scrollDown();
    else if (added > 0) {
      this.unseen += added;
      this.renderNew();
    }
  }

  /** The list items of ``entries`` (a turn heading where the turn changes from ``turn``), remembered by move. */
  build(entries, turn) {
    const ctx = this.context();
    const frag = document.createDocumentFragment();
    for (const e of entries) {
      if (e.turn !== turn) frag.append(logTurnHead(e.turn));
      turn = e.turn;
      const li = logItem(e, ctx, { onHover: this.onHover });
      this.items.set(e.n, li);
      frag.append(li);
    }
    return { frag, turn };
  }

  /** Word every entry again (the page's seats changed: a seat handed to a bot is no longer "you"). */
  relabel() {
    const ctx = this.context();
    for (const e of this.entries) {
      const old = this.items.get(e.n);
      if (!old) continue;
      const li = logItem(e, ctx, { onHover: this.onHover });
      old.replaceWith(li);
      this.items.set(e.n, li);
    }
  }

  append(entries) {
    const last = this.entries.length ? this.entries[this.entries.length - 1].turn : null;
    this.list.append(this.build(entries, last).frag);
    this.entries.push(...entries);
  }

  /** Older entries (ending just before the first shown), put on top without moving what the reader sees. */
  prepend(entries) {
    const { frag, turn } = this.build(entries, null);
    // The turn the old top entry belongs to is now headed above the prepended ones.
    const head = this.list.firstElementChild;
    if (head && head.classList.contains("log-turn") && this.entries.length && this.entries[0].turn === turn) head.remove();
    const fromBottom = this.box.scrollHeight - this.box.scrollTop;
    this.list.prepend(frag);
    this.entries = entries.concat(this.entries);
    if (this.follow) this.scrollDown();
    else {
      this.box.scrollTop = this.box.scrollHeight - fromBottom;
      this.lastTop = this.box.scrollTop;
    }
  }

  removeFrom(n) {
    while (this.entries.length && this.last >= n) {
      const e = this.entries.pop();
      const li = this.items.get(e.n);
      this.items.delete(e.n);
      if (li) li.remove();
    }
    // A turn heading left without moves under it goes too.
    while (this.list.lastElementChild && this.list.lastElementChild.classList.contains("log-turn")) this.list.lastElementChild.remove();
    this.unseen = Math.min(this.unseen, this.entries.length);
    this.renderNew();
  }

  /** A line that is no move (a seat's time ran out, a takeover vote, the game's end: notices.js), told once the log
   * shows move ``after`` (the view it came with may still be played back); it lives as long as the page. */
  note(text, kind, after = 0) {
    this.notes.push({ text, kind, after });
    this.flushNotes();
  }

  flushNotes() {
    const ready = this.notes.filter((x) => x.after <= this.last);
    if (!ready.length) return;
    this.notes = this.notes.filter((x) => x.after > this.last);
    for (const x of ready) this.list.append(h("li", { class: `log-note log-note-${x.kind}`, "data-kind": x.kind, "data-after": x.after, text: x.text }));
    if (this.follow) this.scrollDown();
  }

  /** The top of the list: "Earlier moves" while there are some, else the start of the game. */
  renderTop() {
    clear(this.top);
    if (!this.entries.length) {
      this.top.append(h("p", { class: "muted", text: t("log.empty") }));
    } else if (this.first > 1) {
      const label = this.loading ? t("log.loading") : this.failed ? t("log.earlierFailed") : t("log.earlier", { n: this.first - 1 });
      this.top.append(h("button", { type: "button", class: "log-earlier", disabled: this.loading, text: label, onclick: () => this.loadEarlier() }));
    } else {
      this.top.append(h("p", { class: "log-start muted", text: t("log.start") }));
    }
  }

  renderNew() {
    const show = !this.follow && this.unseen > 0;
    this.newBtn.hidden = !show;
    if (show) this.newBtn.textContent = this.unseen === 1 ? t("log.newMove") : t("log.newMoves", { n: this.unseen });
  }

  async loadEarlier() {
    if (this.loading || !this.entries.length || this.first <= 1) return;
    this.loading = true;
    this.failed = false;
    this.renderTop();
    const end = this.first - 1; // moves 1 .. end are missing
    const start = Math.max(0, end - PAGE);
    let page = null;
    try {
      page = await this.loadPage(start, end - start);
    } catch {
      this.failed = true;
    }
    this.loading = false;
    // The entry that was first stays where the reader saw it, whatever changed above it (the moves put on top, the
    // "Earlier moves" button becoming the start of the game).
    const anchor = this.items.get(this.first);
    const anchorTop = anchor ? anchor.getBoundingClientRect().top : null;
    if (page && Array.isArray(page.log) && this.entries.length) {
      // Moves may have come or gone meanwhile: only what ends right before the first entry shown is put on top.
      const older = page.log.filter((e) => e.n < this.first);
      if (older.length && older[older.length - 1].n === this.first - 1 && older[0].n === start + 1) this.prepend(older);
    }
    this.renderTop();
    if (anchor && anchor.isConnected && anchorTop !== null && !this.follow) {
      this.box.scrollTop += anchor.getBoundingClientRect().top - anchorTop;
      this.lastTop = this.box.scrollTop;
    }
    // Still at the top (a short page, or a tall box): go on.
    if (!this.failed && this.first > 1 && this.box.scrollTop < NEAR_TOP && !this.follow) this.loadEarlier();
  }

  onScroll() {
    // Only the reader moving up stops the following: a scroll event of our own scrolling down may come after the
    // lines grew again (scrollTop unchanged or larger), and must not count as the reader leaving the bottom.
    const top = this.box.scrollTop;
    const below = this.box.scrollHeight - top - this.box.clientHeight;
    if (below <= AT_BOTTOM) this.follow = true;
    else if (top < this.lastTop - 1) this.follow = false;
    this.lastTop = top;
    if (this.follow) this.unseen = 0;
    this.renderNew();
    if (this.box.scrollTop < NEAR_TOP && this.first > 1 && !this.failed) this.loadEarlier();
  }

  scrollDown() {
    this.box.scrollTop = this.box.scrollHeight;
    this.lastTop = this.box.scrollTop;
  }

  /** The "new moves" button: to the newest move, following again. */
  toBottom() {
    this.follow = true;
    this.unseen = 0;
    this.scrollDown();
    this.renderNew();
  }
}
