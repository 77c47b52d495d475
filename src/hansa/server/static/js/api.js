// REST and WebSocket access to the hansa server (docs/api.md).

export class ApiError extends Error {
  constructor(status, message, rule = null, retryAfter = null) {
    super(message);
    this.status = status;
    this.rule = rule;
    this.retryAfter = retryAfter; // seconds, from a 429 / 503 answer's Retry-After header
  }
}

/**
 * JSON.parse for the server's answers, except that a seed (random seeds have 62 bits, more than a JavaScript
 * number holds exactly) is kept as a string of digits when it is that long.
 */
export function parseJson(text) {
  return JSON.parse(text.replace(/"seed"\s*:\s*(\d{16,})/g, '"seed":"$1"'));
}

/** The message of an error answer: {"error", "rule"}; older servers answered FastAPI's {"detail"}. */
function errorMessage(data, fallback) {
  if (data && typeof data.error === "string" && data.error) return data.error;
  if (data && Array.isArray(data.detail)) {
    return data.detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
  }
  if (data && typeof data.detail === "string") return data.detail;
  return fallback;
}

/**
 * The signed-in session's CSRF token (session.js sets it): every request that changes something carries it, as the
 * server refuses such a request with the session cookie but without the token (403).  ``ready``: the first look
 * at the session (GET /api/account), which a page's first POST waits for; a guest has neither.
 */
export const csrf = { token: null, ready: null };

async function request(method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  // The token travels only in this header: never in a URL (docs/api.md, "Seats and tokens").
  if (token) headers["X-Hansa-Token"] = token;
  if (method !== "GET") {
    if (csrf.ready) await csrf.ready.catch(() => null);
    if (csrf.token) headers["X-CSRF-Token"] = csrf.token;
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, `network error: ${err.message || err}`);
  }
  let data = null;
  const text = await res.text();
  if (text) {
    try {
      data = parseJson(text);
    } catch {
      data = { error: text.slice(0, 300) }; // e.g. a proxy's HTML error page
    }
  }
  if (!res.ok) {
    const retry = Number(res.headers.get("Retry-After"));
    const message = errorMessage(data, res.statusText || `HTTP ${res.status}`);
    throw new ApiError(res.status, String(message), data && data.rule ? data.rule : null, Number.isFinite(retry) && retry > 0 ? retry : null);
  }
  return data;
}

const boardCache = new Map();
/** The board data spells city names in ASCII; players read them as printed on the board. */
const SPELLING = { Osnabrueck: "Osnabrück", Muenster: "Münster", Luebeck: "Lübeck", Lueneburg: "Lüneburg", Goettingen: "Göttingen" };

/** Every page of a paged answer (/log, /history: ``{start, next, <key>: [...]}``), joined into one. */
async function allPages(path, limit, key) {
  let start = 0;
  let out = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await request("GET", `${path}?start=${start}&limit=${limit}`);
    if (out === null) out = { ...page, [key]: [] };
    out[key].push(...(page[key] || []));
    out.final = page.final;
    out.moves = page.moves;
    if (page.next === null || page.next === undefined || page.next <= start) break;
    start = page.next;
  }
  delete out.next;
  return out;
}

export const api = {
  // moderation (accounts marked admin: docs/api.md, "Table talk")
  adminReports: (all = false) => request("GET", `/api/admin/reports?all=${all ? "true" : "false"}&limit=200`),
  adminResolve: (id) => request("POST", `/api/admin/reports/${encodeURIComponent(id)}/resolve`),
  adminHide: (game, n, on = true) => request("POST", `/api/admin/games/${encodeURIComponent(game)}/chat/${encodeURIComponent(n)}/hide`, { body: { on } }),
  adminMute: (name, on) => request("POST", `/api/admin/accounts/${encodeURIComponent(name)}/mute`, { body: { on } }),
  adminDisable: (name, on, note) => request("POST", `/api/admin/accounts/${encodeURIComponent(name)}/disable`, { body: note ? { on, note } : { on } }),
  adminLog: () => request("GET", "/api/admin/log?limit=100"),
  bots: () => request("GET", "/api/bots"),
  options: () => request("GET", "/api/options"),
  board(side) {
    if (!boardCache.has(side)) {
      const layout = request("GET", `/api/boards/${encodeURIComponent(side)}`).then((data) => {
        for (const c of data.cities || []) c.name = SPELLING[c.name] || c.name;
        return data;
      });
      boardCache.set(side, layout);
    }
    return boardCache.get(side);
  },
  createGame: (body) => request("POST", "/api/games", { body }),
  /** "Learn to play": a new tutorial game of `chapter` ({id, hotseat_url, ...} as createGame). */
  createTutorial: (chapter, name) => request("POST", "/api/tutorial", { body: name ? { chapter, name } : { chapter } }),
  /** A tutorial chapter's script: {chapter, seed, steps: [{seat, move, text, lesson}]}. */
  tutorial: (chapter) => request("GET", `/api/tutorial/${encodeURIComponent(chapter)}`),
  /** A lobby page, newest first: {games, next}; pass `next` as `before` for the following page. */
  listGames(limit = 30, before = null) {
    const q = new URLSearchParams({ limit: String(limit) });
    if (before) q.set("before", before);
    return request("GET", `/api/games?${q}`);
  },
  view: (id, token) => request("GET", `/api/games/${encodeURIComponent(id)}`, { token }),
  move: (id, token, move, version, seat) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/moves`, { token, body: { move, version, seat } }),
  undo: (id, token, version, seat) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/undo`, { token, body: { version, seat } }),
  stop: (id, creatorToken) => request("POST", `/api/games/${encodeURIComponent(id)}/stop`, { token: creatorToken }),
  deleteGame: (id, creatorToken) => request("DELETE", `/api/games/${encodeURIComponent(id)}`, { token: creatorToken }),
  hint: (id, token) => request("POST", `/api/games/${encodeURIComponent(id)}/hint`, { token, body: {} }),
  /** The whole score history, page by page: {turns, final}. */
  history: (id) => allPages(`/api/games/${encodeURIComponent(id)}/history`, 5000, "turns"),
  /** The whole move log, page by page: {moves, log}. */
  moveLog: (id) => allPages(`/api/games/${encodeURIComponent(id)}/log`, 1000, "log"),
  /** One page of the move log: moves start+1 .. start+limit ({moves, start, next, log}). */
  logPage: (id, start, limit) => request("GET", `/api/games/${encodeURIComponent(id)}/log?start=${start}&limit=${limit}`),
  replay: (id, k) => request("GET", `/api/games/${encodeURIComponent(id)}/replay/${k}`),
  recordUrl: (id) => `/api/games/${encodeURIComponent(id)}/record`,
  /** The away player takes their seat back from the timeout bot (409 when it is not away). */
  back: (id, token, seat) => request("POST", `/api/games/${encodeURIComponent(id)}/back`, { token, body: seat === undefined ? {} : { seat } }),
  /** Vote for a bot of level ``bot`` to take over the abandoned seat ``seat`` (``bot`` null withdraws the vote). */
  takeover: (id, token, seat, bot) => request("POST", `/api/games/${encodeURIComponent(id)}/takeover`, { token, body: { seat, bot } }),
  /** Set (``url``) or remove (null) the seat's "your turn" webhook: {seat, webhook}. */
  webhook: (id, token, seat, url) => request("PUT", `/api/games/${encodeURIComponent(id)}/webhook`, { token, body: seat === undefined ? { url } : { url, seat } }),
  /** The games of the seat tokens this browser holds, [{id, token}] (at most 100; tokens in the body, never a URL). */
  myGames: (games) => request("POST", "/api/my-games", { body: { games } }),

  // Accounts (docs/api.md, "Accounts"): the session is the HttpOnly cookie; csrf.token rides on every change.
  account: () => request("GET", "/api/account"),
  signUp: (name, password) => request("POST", "/api/account/signup", { body: { name, password } }),
  signIn: (name, password) => request("POST", "/api/account/signin", { body: { name, password } }),
  signOut: () => request("POST", "/api/account/signout", { body: {} }),
  signOutEverywhere: () => request("POST", "/api/account/signout-everywhere", { body: {} }),
  sessions: () => request("GET", "/api/account/sessions"),
  changePassword: (old, fresh) => request("POST", "/api/account/password", { body: { old, new: fresh } }),
  deleteAccount: (password) => request("POST", "/api/account/delete", { body: { password } }),
  /** The account's e-mail address: {enabled, email, verified, notices} (docs/api.md, "E-mail notices"). */
  email: () => request("GET", "/api/account/email"),
  /** Give (or change) the address: a confirmation e-mail is sent to it, in ``lang``. */
  setEmail: (email, lang) => request("POST", "/api/account/email", { body: { email, lang } }),
  removeEmail: () => request("DELETE", "/api/account/email"),
  /** Turn notices on or off for every game. */
  setNotices: (on) => request("PUT", "/api/account/email/notices", { body: { on } }),

  // Ratings (docs/api.md, "Ratings, leaderboard and profiles").
  leaderboard(limit, offset, established) {
    const q = new URLSearchParams({ limit: String(limit), offset: String(offset), established: established ? "true" : "false" });
    return request("GET", `/api/leaderboard?${q}`);
  },
  player: (name) => request("GET", `/api/players/${encodeURIComponent(name)}`),
  playerGames: (name, limit, offset) => request("GET", `/api/players/${encodeURIComponent(name)}/games?limit=${limit}&offset=${offset}`),
  botProfile: (spec) => request("GET", `/api/bots/${encodeURIComponent(spec)}/profile`),
  botGames: (spec, limit, offset) => request("GET", `/api/bots/${encodeURIComponent(spec)}/games?limit=${limit}&offset=${offset}`),

  // Open tables and rematches (docs/api.md, "Open tables").
  /** Attach the seat of the link token ``token`` to the signed-in account (the link then only watches). */
  attachSeat: (id, token) => request("POST", "/api/account/seats", { token, body: { game: id } }),
  /** The public open tables, newest first: {tables}. */
  tables: (limit = 50) => request("GET", `/api/tables?limit=${limit}`),
  /** One table (``token``: a guest's table token). */
  table: (id, token) => request("GET", `/api/tables/${encodeURIComponent(id)}`, { token }),
  createTable: (body) => request("POST", "/api/tables", { body }),
  /** Take a seat ({seat?, name?, colour?}): the table and, for a guest, its ``table_token``. */
  joinTable: (id, body) => request("POST", `/api/tables/${encodeURIComponent(id)}/join`, { body }),
  /** leave, remove {seat}, bots {bot}, start, close, accept, decline. */
  tableAction: (id, action, token, body = {}) => request("POST", `/api/tables/${encodeURIComponent(id)}/${action}`, { token, body }),
  /** Play now: a seat at a matching open table or a new one ({players, clock, name?}). */
  quickPlay: (body) => request("POST", "/api/tables/quick", { body }),
  /** Propose (or look up) the rematch of a finished game: its table. */
  rematch: (id, token) => request("POST", `/api/games/${encodeURIComponent(id)}/rematch`, { token, body: {} }),
  /** The rematch proposed for a finished game: {table: table | null}. */
  rematchOf: (id, token) => request("GET", `/api/games/${encodeURIComponent(id)}/rematch`, { token }),

  // Table chat (docs/api.md, "Table chat").
  /** The messages numbered after ``after``: {messages, presets, spectators_write}. */
  chat: (id, after = 0) => request("GET", `/api/games/${encodeURIComponent(id)}/chat?after=${after}&limit=200`),
  /** Write ``{text}`` or ``{preset}`` (the seat's token, or the session): {message}. */
  chatSend: (id, token, body) => request("POST", `/api/games/${encodeURIComponent(id)}/chat`, { token, body }),
  /** Report message ``n`` (with an optional reason): {reported, new}. */
  chatReport: (id, token, n, reason) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/chat/${n}/report`, { token, body: reason ? { reason } : {} }),
};

/** WebSocket close codes of the server (docs/api.md, "WebSocket limits and close codes"). */
export const CLOSE = {
  UNKNOWN_GAME: 4404, // stop
  TOO_SLOW: 4408, // the client did not read: reconnect at once and resync
  DAMAGED: 4409, // the game is damaged: stop, show the reason
  DELETED: 4410, // the game was deleted: stop
};
const FINAL_CODES = new Set([CLOSE.UNKNOWN_GAME, CLOSE.DAMAGED, CLOSE.DELETED]);

/** The subprotocols offered on a game's WebSocket: browsers cannot set headers, so the token rides along here. */
export function socketProtocols(token) {
  return token ? ["hansa", `hansa.token.${token}`] : ["hansa"];
}

/**
 * The game's WebSocket: pushes views; reconnects with exponential backoff after a loss (a refused handshake,
 * e.g. HTTP 429 for too many sockets, looks like any failed connection), at once after 4408 (too slow), never
 * after 4404 / 4409 / 4410.
 * onView(view) for every pushed view; onChat(message) for every chat message pushed, onChatHidden(n) for one an
 * operator hid; onStatus("open" | "reconnecting" | "closed", attempt, {code, reason}).
 */
export class LiveSocket {
  constructor(id, token, { onView, onStatus, onChat, onChatHidden }) {
    this.id = id;
    this.token = token;
    this.onView = onView;
    this.onChat = onChat || (() => {});
    this.onChatHidden = onChatHidden || (() => {});
    this.onStatus = onStatus || (() => {});
    this.attempt = 0;
    this.ws = null;
    this.stopped = false;
    this.timer = null;
    this.pingTimer = null;
    this.everOpen = false;
    window.addEventListener("online", () => this.retryNow());
  }

  /** The socket's address: never a token in it (the token is a subprotocol). */
  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/api/games/${encodeURIComponent(this.id)}/ws`;
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    let ws;
    try {
      ws = new WebSocket(this.url(), socketProtocols(this.token));
    } catch {
      this.schedule();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.everOpen = true;
      this.onStatus("open", 0);
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => {
        if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "ping" }));
      }, 20000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = parseJson(ev.data);
      } catch {
        return;
      }
      if (msg.type === "view" && msg.view) this.onView(msg.view);
      else if (msg.type === "chat" && msg.message) this.onChat(msg.message);
      else if (msg.type === "chat_hidden" && typeof msg.n === "number") this.onChatHidden(msg.n);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      const info = { code: ev.code, reason: ev.reason || "" };
      if (FINAL_CODES.has(ev.code)) {
        this.stopped = true;
        this.onStatus("closed", 0, info);
        return;
      }
      if (ev.code === CLOSE.TOO_SLOW) {
        // Dropped for not reading fast enough (e.g. a background tab): come back now; the new socket pushes
        // the current view.
        this.onStatus("reconnecting", 0, info);
        this.connect();
        return;
      }
      this.schedule(info); // 1006 (lost / refused), 1008 (too many messages), 1009 (too large), restarts...
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  schedule(info = {}) {
    this.attempt += 1;
    this.onStatus("reconnecting", this.attempt, info);
    const delay = Math.min(10000, 400 * 2 ** Math.min(this.attempt - 1, 5)) * (0.8 + Math.random() * 0.4);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  retryNow() {
    if (this.stopped || this.ws) return;
    clearTimeout(this.timer);
    this.connect();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close();
  }
}

/** The game id from a page path like /game/{id} or /replay/{id}, or the ?id= query parameter. */
export function gameIdFromLocation() {
  const params = new URLSearchParams(location.search);
  if (params.get("id")) return params.get("id");
  const parts = location.pathname.split("/").filter(Boolean);
  if (parts.length >= 2 && (parts[0] === "game" || parts[0] === "replay")) return decodeURIComponent(parts[1]);
  return null;
}

/**
 * The seat token of a join link: /game/{id}#token=... (the fragment never reaches the server).  An old link
 * with ?token=... still works: the token moves into the fragment and the query leaves the address bar (and
 * so the history) at once.
 */
export function tokenFromLocation() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) return fragment.get("token");
  const query = new URLSearchParams(location.search);
  const legacy = query.get("token");
  if (!legacy) return null;
  query.delete("token");
  const rest = query.toString();
  fragment.set("token", legacy);
  history.replaceState(history.state, "", `${location.pathname}${rest ? `?${rest}` : ""}#${fragment}`);
  return legacy;
}

/** A join link as the server gives it out now: an old stored "/game/x?token=y" becomes "/game/x#token=y". */
export function fragmentLink(url) {
  if (typeof url !== "string") return url;
  const m = /^([^?#]*)\?token=([^&#]*)$/.exec(url);
  return m ? `${m[1]}#token=${m[2]}` : url;
}
