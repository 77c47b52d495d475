// One timeline: the moves of the game in order, and the one position the page shows.
//
// A view carries, in its log, what each of its last 60 moves changed (entry.delta: the board, the desks, the turn
// and the result).  From the newest state, undoing those changes backwards gives the whole position before each
// move, so the page can show the moves between what it shows and the newest view one by one, every part of the
// page at the same move.  The timeline never goes backwards (only a move taken back does), and it keeps up: a move
// is on screen at most LAG ms after it arrived (the pace shortens, and when even that is too slow the older moves
// are passed over and only the newest are animated), and when the viewer must decide the newest position shows
// at once, whatever was playing.

export const PACES = { slow: 1600, normal: 900, fast: 380, instant: 0 };
/** A move is shown at most this long after the view that brought it arrived (its animation may run on). */
export const LAG = 1500;
/** A step shorter than this is not worth animating: the playback passes over moves instead. */
export const MIN_STEP = 150;

const copy = (x) => (x === null || x === undefined ? x : JSON.parse(JSON.stringify(x)));

/** The parts of a public state a move can change, copied (the rest is shared). */
function boardState(state) {
  return {
    ...state,
    houses: { ...state.houses },
    offices: Object.fromEntries(Object.entries(state.offices).map(([c, l]) => [c, [...l]])),
    extra_offices: Object.fromEntries(Object.entries(state.extra_offices).map(([c, l]) => [c, [...l]])),
    right_offices: Object.fromEntries(Object.entries(state.right_offices || {}).map(([c, l]) => [c, [...l]])),
    coellen_table: [...state.coellen_table],
    route_markers: { ...state.route_markers },
    controllers: { ...state.controllers },
    players: state.players.map((p) => ({ ...p })),
    turn: { ...state.turn },
  };
}

/** The board before a move, from the board after it and what the move changed. */
export function undoDelta(after, delta) {
  const st = boardState(after);
  for (const [house, [before]] of Object.entries(delta.houses || {})) {
    if (before) st.houses[house] = before;
    else delete st.houses[house];
  }
  for (const [city, i, before] of delta.offices || []) st.offices[city][i] = before;
  for (const key of ["extra_offices", "right_offices"]) {
    for (const [city, before] of delta[key] || []) {
      if (before.length) st[key][city] = copy(before);
      else delete st[key][city];
    }
  }
  for (const [i, before] of delta.coellen_table || []) st.coellen_table[i] = before;
  for (const [route, before] of delta.route_markers || []) {
    if (before) st.route_markers[route] = before;
    else delete st.route_markers[route];
  }
  for (const [city, before] of delta.controllers || []) {
    if (before === null || before === undefined) delete st.controllers[city];
    else st.controllers[city] = before;
  }
  if (delta.players) {
    for (const [seat, key, before] of delta.players) st.players[seat][key] = copy(before);
  } else {
    // a delta from before the desks were in it: the score at least
    (delta.score || []).forEach((n, seat) => {
      if (st.players[seat]) st.players[seat].score -= n;
    });
  }
  for (const [key, [before]] of Object.entries(delta.turn || {})) {
    if (before === null || before === undefined) delete st.turn[key];
    else st.turn[key] = copy(before);
  }
  for (const [key, [before]] of Object.entries(delta.public || {})) {
    if (key === "result" && !before) delete st.result;
    else st[key] = copy(before);
  }
  if (delta.pawn) st.pawn = delta.pawn[0];
  if (delta.completed_cities) st.completed_cities = delta.completed_cities[0];
  return st;
}

/**
 * The steps from version ``from`` to ``view``: [{entry, before, after}], each ``after`` the board once the entry's
 * move is played.  null when the log no longer reaches back that far (or a delta is missing).
 */
export function stepsSince(view, from) {
  const entries = view.log.filter((e) => e.n > from);
  if (!entries.length) return [];
  if (entries[0].n !== from + 1 || entries.some((e) => !e.delta)) return null;
  const steps = [];
  let after = view.state;
  for (let i = entries.length - 1; i >= 0; i--) {
    const before = undoDelta(after, entries[i].delta);
    steps.unshift({ entry: entries[i], before, after });
    after = before;
  }
  return steps;
}

/**
 * The page's timeline.  ``show(step, ms)`` shows one position: ``step.after`` (whole) with ``step.entry`` the move
 * that led there, animated over ``ms`` (0: drawn at once); ``step.latest`` is true for the newest view's own
 * position (its legal moves may be offered).  ``update(view, {jump, pace, quick})`` takes every newer view.
 */
export class Timeline {
  constructor({ show, now = () => performance.now() }) {
    this.show = show;
    this.now = now;
    this.latest = null;
    this.shown = -1; // the move number on screen
    this.arrived = new Map(); // move number -> when it first came
    this.steps = []; // {entry, before, after} for shown+1 .. latest.version
    this.timer = null;
    this.pace = PACES.normal;
    this.quick = () => false;
  }

  /** Moves are being played back (or the last one's animation has its time). */
  get playing() {
    return this.timer !== null;
  }

  /**
   * A newer view (or the same again).  ``jump``: show it at once (the viewer must decide, a move was taken back,
   * the first view); ``pace``: ms a move is given; ``quick(entry)``: a move this page made itself (no pause).
   */
  update(view, { jump = false, pace = this.pace, quick = this.quick } = {}) {
    const first = !this.latest;
    this.latest = view;
    this.pace = pace;
    this.quick = quick;
    const t = this.now();
    for (const n of [...this.arrived.keys()]) if (n > view.version) this.arrived.delete(n); // taken back
    for (const e of view.log) if (!this.arrived.has(e.n) && e.n > this.shown) this.arrived.set(e.n, t);
    if (first || jump || pace === 0 || view.version <= this.shown) return this.jump();
    const steps = stepsSince(view, this.shown);
    if (!steps) return this.jump(); // the view's log no longer reaches back to what is shown: forward at once
    this.steps = steps;
    if (!this.playing) this.tick();
    return undefined;
  }

  /** Show the newest position now, animating the moves passed over (up to 3 of them) at once. */
  jump() {
    this.stop();
    const view = this.latest;
    const passed = this.shown >= 0 && view.version > this.shown ? stepsSince(view, this.shown) || [] : [];
    this.shown = view.version;
    this.steps = [];
    const last = passed.length ? passed[passed.length - 1] : null;
    this.show({ entry: last ? last.entry : null, before: null, after: view.state, latest: true, also: passed.slice(-4, -1) }, passed.length ? Math.min(this.pace || 0, 500) : 0);
  }

  /** Show the next move, at a pace that keeps within LAG of the moves' arrival. */
  tick() {
    this.timer = null;
    const view = this.latest;
    if (!this.steps.length || this.shown >= view.version) {
      if (this.shown < view.version) this.jump();
      return undefined;
    }
    const left = (this.arrived.get(this.shown + 1) ?? this.now()) + LAG - this.now();
    let ms = Math.min(this.pace, left / this.steps.length);
    if (ms < MIN_STEP) {
      // Too many moves for the time left: pass over the older ones, animate the newest that fit.
      const keep = Math.max(0, Math.floor(left / MIN_STEP));
      if (keep < this.steps.length) {
        if (keep === 0) return this.jump();
        this.steps = this.steps.slice(this.steps.length - keep);
        this.shown = this.steps[0].entry.n - 1;
      }
      ms = Math.max(MIN_STEP, Math.min(this.pace, left / this.steps.length));
    }
    // moves this page made itself are known: passed over at once (the last of them is shown)
    while (this.steps.length > 1 && this.quick(this.steps[0].entry)) this.steps.shift();
    const step = this.steps.shift();
    this.shown = step.entry.n;
    const latest = this.shown === view.version;
    if (this.quick(step.entry)) ms = 0;
    this.show({ ...step, after: latest ? view.state : step.after, latest }, ms);
    // the next move waits for this one's time (the newest too: a move coming next waits for its animation)
    if (ms > 0) this.timer = setTimeout(() => this.tick(), ms);
    else if (!latest) this.tick();
    return undefined;
  }

  /** Show the newest position at once (the reader's "skip"). */
  skip() {
    if (this.latest && this.shown < this.latest.version) this.jump();
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
  }
}
