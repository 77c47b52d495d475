// Playing back the moves of others one at a time.
//
// A view carries, in its log, what each of its last 60 moves changed on the table (entry.delta).  From the newest
// state, undoing those changes backwards gives the board before each move, so the moves between what the screen
// shows and the newest view can be shown one by one at a readable pace, whatever the screen saw before.

export const PACES = { slow: 1600, normal: 900, fast: 380, instant: 0 };

const copy = (x) => (x === null || x === undefined ? x : JSON.parse(JSON.stringify(x)));

/** The parts of a public state the board draws, deep-copied (the rest is shared). */
function boardState(state) {
  return {
    ...state,
    houses: { ...state.houses },
    offices: Object.fromEntries(Object.entries(state.offices).map(([c, l]) => [c, [...l]])),
    extra_offices: Object.fromEntries(Object.entries(state.extra_offices).map(([c, l]) => [c, [...l]])),
    coellen_table: [...state.coellen_table],
    route_markers: { ...state.route_markers },
    controllers: { ...state.controllers },
    players: state.players.map((p) => ({ ...p })),
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
  for (const [city, before] of delta.extra_offices || []) {
    if (before.length) st.extra_offices[city] = copy(before);
    else delete st.extra_offices[city];
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
  (delta.score || []).forEach((n, seat) => {
    if (st.players[seat]) st.players[seat].score -= n;
  });
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
 * Plays steps with a pause of ``pace`` ms each: show(step, ms) draws step.after (and animates); done() when all are
 * shown or ``skip()`` is called.  New steps can be appended while it plays.
 */
export class Player {
  constructor({ show, done }) {
    this.show = show;
    this.done = done;
    this.queue = [];
    this.timer = null;
    this.playing = false;
  }

  play(steps, ms) {
    this.ms = ms;
    this.queue.push(...steps);
    if (!this.playing) {
      this.playing = true;
      this.next();
    }
  }

  next() {
    const step = this.queue.shift();
    if (!step) {
      this.playing = false;
      this.done();
      return;
    }
    this.show(step, this.ms);
    // Moves of a seat this page plays (in a hot-seat game, between bot moves) are already known: no pause.
    this.timer = setTimeout(() => this.next(), step.quick ? 0 : this.ms);
  }

  /** Show the rest at once. */
  skip() {
    clearTimeout(this.timer);
    this.queue = [];
    if (this.playing) {
      this.playing = false;
      this.done();
    }
  }
}
