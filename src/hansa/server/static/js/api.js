// REST and WebSocket access to the hansa server (docs/api.md).

export class ApiError extends Error {
  constructor(status, message, rule = null) {
    super(message);
    this.status = status;
    this.rule = rule;
  }
}

async function request(method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers["X-Hansa-Token"] = token;
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
      data = JSON.parse(text);
    } catch {
      data = { error: text };
    }
  }
  if (!res.ok) {
    let message = data && data.error !== undefined ? data.error : res.statusText;
    if (data && Array.isArray(data.detail)) {
      // FastAPI validation errors
      message = data.detail.map((d) => `${(d.loc || []).slice(1).join(".")}: ${d.msg}`).join("; ");
    } else if (data && typeof data.detail === "string") message = data.detail;
    throw new ApiError(res.status, String(message), data && data.rule ? data.rule : null);
  }
  return data;
}

const boardCache = new Map();

export const api = {
  bots: () => request("GET", "/api/bots"),
  options: () => request("GET", "/api/options"),
  board(side) {
    if (!boardCache.has(side)) boardCache.set(side, request("GET", `/api/boards/${encodeURIComponent(side)}`));
    return boardCache.get(side);
  },
  createGame: (body) => request("POST", "/api/games", { body }),
  listGames: (limit = 30) => request("GET", `/api/games?limit=${limit}`),
  view: (id, token) => request("GET", `/api/games/${encodeURIComponent(id)}`, { token }),
  move: (id, token, move, version, seat) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/moves`, { token, body: { move, version, seat } }),
  undo: (id, token, version, seat) =>
    request("POST", `/api/games/${encodeURIComponent(id)}/undo`, { token, body: { version, seat } }),
  history: (id) => request("GET", `/api/games/${encodeURIComponent(id)}/history`),
  replay: (id, k) => request("GET", `/api/games/${encodeURIComponent(id)}/replay/${k}`),
  recordUrl: (id) => `/api/games/${encodeURIComponent(id)}/record`,
};

/**
 * The game's WebSocket: pushes views; reconnects with exponential backoff after a loss.
 * onView(view) for every pushed view; onStatus("open" | "reconnecting" | "closed", attempt).
 */
export class LiveSocket {
  constructor(id, token, { onView, onStatus }) {
    this.id = id;
    this.token = token;
    this.onView = onView;
    this.onStatus = onStatus || (() => {});
    this.attempt = 0;
    this.ws = null;
    this.stopped = false;
    this.timer = null;
    this.pingTimer = null;
    this.everOpen = false;
    window.addEventListener("online", () => this.retryNow());
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = this.token ? `?token=${encodeURIComponent(this.token)}` : "";
    return `${proto}//${location.host}/api/games/${encodeURIComponent(this.id)}/ws${q}`;
  }

  connect() {
    if (this.stopped) return;
    clearTimeout(this.timer);
    let ws;
    try {
      ws = new WebSocket(this.url());
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
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg.type === "view" && msg.view) this.onView(msg.view);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      if (ev.code === 4404) {
        this.onStatus("closed", 0);
        return;
      }
      this.schedule();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  schedule() {
    this.attempt += 1;
    this.onStatus("reconnecting", this.attempt);
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
