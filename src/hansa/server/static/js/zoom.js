// Zoom and pan for the board: pinch and drag on touch screens, Ctrl + wheel and drag with the mouse, and buttons.
// The content (the board's SVG) is scaled with a CSS transform inside a viewport that clips it; at scale 1 the
// page scrolls as usual over the board, once zoomed a drag pans the board (and a drag never counts as a click).

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
    const r = this.viewport.getBoundingClientRect();
    this.zoomAt(r.left + r.width / 2, r.top + r.height / 2, factor);
  }

  reset() {
    this.scale = 1;
    this.tx = 0;
    this.ty = 0;
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
