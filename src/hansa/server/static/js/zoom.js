// Zoom and pan for the board: pinch and drag on touch screens, Ctrl + wheel and drag with the mouse, and buttons.
// The content (the board's SVG) is scaled with a CSS transform inside a viewport that clips it; at scale 1 the
// page scrolls as usual over the board, once zoomed a drag pans the board (and a drag never counts as a click).
//
// The zoom serves the player: a tap-to-zoom made for a decision (tapZoom) is undone, animated, once the decision is
// made (decided): back to the whole board or to the player's own zoom from before.  And the places of the latest
// move are brought into view (follow): a zoomed board pans to them, or zooms out as far as they need.  A zoom the
// player made (pinch, Ctrl + wheel, the buttons) is theirs: it is kept, only panned.

export class Zoom {
  constructor(viewport, content, { max = 8, onChange } = {}) {
    this.viewport = viewport;
    this.content = content;
    this.max = max;
    this.onChange = onChange || (() => {});
    this.scale = 1;
    this.tx = 0;
    this.ty = 0;
    this.pointers = new Map();
    this.moved = false;
    this.tap = null; // the zoom before a tap-to-zoom, while that tap's decision is pending
    this.followed = null; // the move last brought into view
    content.style.setProperty("transform-origin", "0 0");
    viewport.addEventListener("pointerdown", (ev) => this.down(ev));
    viewport.addEventListener("pointermove", (ev) => this.move(ev));
    for (const type of ["pointerup", "pointercancel", "pointerleave"]) viewport.addEventListener(type, (ev) => this.up(ev));
    viewport.addEventListener("wheel", (ev) => this.wheel(ev), { passive: false });
    // A drag is not a click on what it started on.
    viewport.addEventListener("click", (ev) => {
      if (this.moved) {
        ev.stopPropagation();
        ev.preventDefault();
        this.moved = false;
      }
    }, true);
    this.apply();
  }

  get zoomed() {
    return this.scale > 1.001;
  }

  down(ev) {
    this.content.style.removeProperty("transition");
    this.pointers.set(ev.pointerId, { x: ev.clientX, y: ev.clientY, x0: ev.clientX, y0: ev.clientY });
    this.moved = false;
    if (this.pointers.size === 2) this.pinch = this.pinchState();
  }

  move(ev) {
    const p = this.pointers.get(ev.pointerId);
    if (!p) return;
    const dx = ev.clientX - p.x;
    const dy = ev.clientY - p.y;
    p.x = ev.clientX;
    p.y = ev.clientY;
    if (Math.hypot(p.x - p.x0, p.y - p.y0) > 8) this.moved = true;
    if (this.pointers.size === 2 && this.pinch) {
      const now = this.pinchState();
      this.tap = null; // the player zooms by hand: theirs from now on
      const factor = now.dist / this.pinch.dist;
      this.zoomAt(now.cx, now.cy, factor, now.cx - this.pinch.cx, now.cy - this.pinch.cy);
      this.pinch = now;
      ev.preventDefault();
    } else if (this.pointers.size === 1 && this.zoomed && (ev.pointerType !== "mouse" || ev.buttons === 1)) {
      this.tx += dx;
      this.ty += dy;
      this.apply();
      ev.preventDefault();
    }
  }

  up(ev) {
    this.pointers.delete(ev.pointerId);
    if (this.pointers.size < 2) this.pinch = null;
  }

  pinchState() {
    const [a, b] = [...this.pointers.values()];
    return { dist: Math.hypot(a.x - b.x, a.y - b.y) || 1, cx: (a.x + b.x) / 2, cy: (a.y + b.y) / 2 };
  }

  wheel(ev) {
    if (!ev.ctrlKey && !this.zoomed) return; // plain wheel scrolls the page until the board is zoomed
    ev.preventDefault();
    this.tap = null;
    this.zoomAt(ev.clientX, ev.clientY, Math.exp(-ev.deltaY * (ev.ctrlKey ? 0.01 : 0.002)));
  }

  /** Zoom by ``factor`` keeping the point (clientX, clientY) in place, then pan by (dx, dy). */
  zoomAt(clientX, clientY, factor, dx = 0, dy = 0) {
    const r = this.viewport.getBoundingClientRect();
    const x = clientX - r.left;
    const y = clientY - r.top;
    const next = Math.min(this.max, Math.max(1, this.scale * factor));
    const f = next / this.scale;
    this.tx = x - (x - this.tx) * f + dx;
    this.ty = y - (y - this.ty) * f + dy;
    this.scale = next;
    this.apply();
  }

  /** Zoom so that ``factor`` times the current scale shows, centred on the viewport (buttons). */
  step(factor) {
    this.tap = null;
    const r = this.viewport.getBoundingClientRect();
    this.zoomAt(r.left + r.width / 2, r.top + r.height / 2, factor);
  }

  reset() {
    this.tap = null;
    this.scale = 1;
    this.tx = 0;
    this.ty = 0;
    this.apply();
  }

  /** Tap-to-zoom for a decision: zoom like zoomAt, remembering the zoom to go back to once it is made. */
  tapZoom(clientX, clientY, factor) {
    if (!this.tap) this.tap = { scale: this.scale, tx: this.tx, ty: this.ty };
    this.zoomAt(clientX, clientY, factor);
  }

  /** The decision a tap-to-zoom was for is made (its new position shown): back to the zoom from before. */
  decided() {
    if (!this.tap) return;
    const { scale, tx, ty } = this.tap;
    this.tap = null;
    this.animateTo(scale, tx, ty);
  }

  /**
   * Bring ``elements`` (the places of move ``n``) into view once per move: nothing to do when the board is whole or
   * they are visible; else pan so they are centred, zooming out (not below the whole board) when they do not fit.
   * Not while a tap-to-zoom waits for its decision (the player is choosing there).
   */
  follow(elements, n) {
    if (n === this.followed) return;
    this.followed = n;
    if (!this.zoomed || this.tap || this.pointers.size) return;
    const box = this.contentBox(elements);
    if (!box) return;
    const r = this.viewport.getBoundingClientRect();
    const w = r.width || 1;
    const h = r.height || 1;
    const pad = Math.min(w, h) * 0.08; // the places a little off the edge
    const seen = (s, tx, ty) => box.x0 * s + tx >= pad && box.x1 * s + tx <= w - pad && box.y0 * s + ty >= pad && box.y1 * s + ty <= h - pad;
    if (seen(this.scale, this.tx, this.ty)) return;
    const need = Math.min((w - 2 * pad) / Math.max(1, box.x1 - box.x0), (h - 2 * pad) / Math.max(1, box.y1 - box.y0));
    const scale = Math.max(1, Math.min(this.scale, need));
    const cx = (box.x0 + box.x1) / 2;
    const cy = (box.y0 + box.y1) / 2;
    this.animateTo(scale, w / 2 - cx * scale, h / 2 - cy * scale);
  }

  /**
   * Zoom in on ``elements`` (the place the player is asked to choose: the tutorial's next move on a phone) at
   * ``want`` times the whole board, less when they do not all fit, centred on them.
   */
  focus(elements, want) {
    const box = this.contentBox(elements);
    if (!box) return;
    const r = this.viewport.getBoundingClientRect();
    const w = r.width || 1;
    const h = r.height || 1;
    const pad = Math.min(w, h) * 0.12;
    const fit = Math.min((w - 2 * pad) / Math.max(1, box.x1 - box.x0), (h - 2 * pad) / Math.max(1, box.y1 - box.y0));
    const scale = Math.max(1, Math.min(this.max, want, fit));
    this.tap = null;
    const cx = (box.x0 + box.x1) / 2;
    const cy = (box.y0 + box.y1) / 2;
    this.animateTo(scale, w / 2 - cx * scale, h / 2 - cy * scale);
  }

  /** The union of the elements' boxes in the content's own (unscaled) px, or null. */
  contentBox(elements) {
    const c = this.content.getBoundingClientRect(); // as drawn now (an animation may be under way)
    const k = c.width / (this.content.offsetWidth || 1);
    let box = null;
    for (const el of elements) {
      const b = el.getBoundingClientRect();
      if (!b.width && !b.height) continue;
      const x0 = (b.left - c.left) / k;
      const y0 = (b.top - c.top) / k;
      const x1 = (b.right - c.left) / k;
      const y1 = (b.bottom - c.top) / k;
      box = box ? { x0: Math.min(box.x0, x0), y0: Math.min(box.y0, y0), x1: Math.max(box.x1, x1), y1: Math.max(box.y1, y1) } : { x0, y0, x1, y1 };
    }
    return box;
  }

  /** Go to a zoom smoothly (at once for those who ask for less motion). */
  animateTo(scale, tx, ty) {
    const still = typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
    if (!still) {
      this.content.style.setProperty("transition", "transform 0.35s ease-out");
      clearTimeout(this.settle);
      this.settle = setTimeout(() => this.content.style.removeProperty("transition"), 400);
    }
    this.scale = Math.min(this.max, Math.max(1, scale));
    this.tx = tx;
    this.ty = ty;
    this.apply();
  }

  apply() {
    const r = this.viewport.getBoundingClientRect();
    const w = r.width || 1;
    const h = r.height || 1;
    // Keep the board covering the viewport: no empty margins when panning.
    this.tx = Math.min(0, Math.max(w - w * this.scale, this.tx));
    this.ty = Math.min(0, Math.max(h - h * this.scale, this.ty));
    if (!this.zoomed) {
      this.tx = 0;
      this.ty = 0;
    }
    this.content.style.setProperty("transform", `translate(${this.tx}px, ${this.ty}px) scale(${this.scale})`);
    this.viewport.classList.toggle("zoomed", this.zoomed);
    this.onChange(this.scale);
  }
}
