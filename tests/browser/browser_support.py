"""Helpers for the browser tests: the server subprocess, a move policy that ends games fast, page waits."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def hansa_command() -> list[str]:
    exe = Path(sys.executable).with_name("hansa")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("hansa")
    if found:
        return [found]
    return [sys.executable, "-c", "from hansa.cli import app; app()"]


class Server:
    """``hansa serve`` on a free port with its own SQLite database; restartable on the same port and file."""

    def __init__(self, tmp: Path, extra: list[str] | None = None) -> None:
        self.extra = extra or []
        self.port = free_port()
        self.db = tmp / "db.sqlite3"
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = tmp / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = hansa_command() + [
            "serve", "--port", str(self.port), "--database-url", f"sqlite:///{self.db}",
            "--bot-delay", "0", "--bot-processes", "0",
            # The defaults (10 creations a minute, 20 running games and 20 sockets per client) are for hostile
            # clients; these tests legitimately create many games and open many pages from one address.
            "--create-per-minute", "100000", "--max-live-games-per-client", "100000", "--ws-per-client", "1000",
            *self.extra,
        ]
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"hansa serve exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.base}/api/bots", timeout=1) as res:
                    if res.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                time.sleep(0.1)
        raise RuntimeError(f"hansa serve did not answer: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None

    # -------------------------------------------------------------- JSON API helpers for test setup

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("X-Hansa-Token", token)
        with urllib.request.urlopen(req, timeout=10) as res:
            return json.loads(res.read() or b"null")

    def create(self, players: list[dict[str, Any]], seed: int | None = None, options: dict[str, Any] | None = None,
               hotseat: bool = False) -> Any:
        """Create a game of seat links (a token and link per human seat) or, with ``hotseat``, a hot-seat game (one
        hot-seat token and link for every human seat, no seat tokens)."""
        body: dict[str, Any] = {"players": players, "options": options or {}}
        if seed is not None:
            body["seed"] = seed
        if hotseat:
            body["table"] = {"hotseat": True}
        return self.call("POST", "/api/games", body)


def route_of(house: str) -> str:
    return house.rsplit(":", 1)[0]


def choose(view: dict[str, Any]) -> dict[str, Any]:
    """A legal move of ``view["legal"]`` that makes progress: claim (office first), then fill own routes."""
    legal = view["legal"]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for m in legal:
        by_type.setdefault(m["json"]["type"], []).append(m)
    claims = by_type.get("claim", [])
    if claims:
        for benefit in ("office", "ability", "table", "extra"):
            hits = [m for m in claims if m["json"]["benefit"] == benefit]
            if hits:
                return hits[0]
        return claims[0]
    for kind in ("marker", "relocate", "neutral-office", "pawn", "done"):
        if kind in by_type:
            return by_type[kind][0]
    places = [m for m in by_type.get("place", []) if m["json"]["piece"] == "T"]
    if places:
        me = view["state"]["turn"]["decider"]
        houses = view["state"]["houses"]

        def rank(m: dict[str, Any]) -> tuple[int, int]:
            route = route_of(m["json"]["house"])
            occupants = [v for k, v in houses.items() if route_of(k) == route]
            others = sum(1 for v in occupants if v[0] != me)
            free = sum(1 for p in places if route_of(p["json"]["house"]) == route)
            return (others > 0, free)

        return min(places, key=rank)
    for kind in ("income", "end"):
        if kind in by_type:
            return by_type[kind][0]
    return legal[0]


def deciders_token(server: Server, game: dict[str, Any]) -> str | None:
    """The token that plays the deciding seat of ``game`` (a creation answer): its hot-seat token, or in a game of
    seat links the deciding seat's own token (None while a bot decides)."""
    if game.get("hotseat_token"):
        return game["hotseat_token"]  # type: ignore[no-any-return]
    decider = server.call("GET", f"/api/games/{game['id']}")["state"]["turn"]["decider"]
    return game["seats"][decider]["token"] if decider is not None else None  # type: ignore[no-any-return]


def play_out_via_api(server: Server, game: dict[str, Any], limit: float = 60.0) -> dict[str, Any]:
    """Play every human seat of ``game`` through the JSON API with :func:`choose` until the game is over (with the
    hot-seat token of a hot-seat game, or each seat's token in a game of seat links)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        token = deciders_token(server, game)
        view = server.call("GET", f"/api/games/{game['id']}", token=token)
        if view["status"] == "over":
            return view  # type: ignore[no-any-return]
        if not view["legal"]:
            time.sleep(0.02)
            continue
        move = choose(view)
        server.call(
            "POST", f"/api/games/{game['id']}/moves",
            {"move": move["text"], "version": view["version"], "seat": view["state"]["turn"]["decider"]}, token=token,
        )
    raise AssertionError("the game did not end in time")


def paged(server: Server, game_id: str, what: str, key: str) -> list[Any]:
    """Every entry of a paged answer (``/log``'s ``log``, ``/history``'s ``turns``), following ``next``."""
    entries: list[Any] = []
    start: int | None = 0
    while start is not None:
        page = server.call("GET", f"/api/games/{game_id}/{what}?start={start}")
        entries += page[key]
        start = page["next"]
    return entries


def history_turns(server: Server, game_id: str) -> list[dict[str, Any]]:
    """The whole score history of a game (``/history``'s ``turns``, move 0 first)."""
    return paged(server, game_id, "history", "turns")


def move_log(server: Server, game_id: str) -> list[dict[str, Any]]:
    """The whole move log of a game (``/log``'s ``log``)."""
    return paged(server, game_id, "log", "log")


# Page waits: the pages' CSP forbids eval, so page.wait_for_function gets arrow functions ("() => ..."), which
# Playwright calls as functions; a bare expression string would be eval'ed by its polling loop and refused.


def open_game(page: Any, server: Server, url: str) -> None:
    page.goto(server.base + url)
    page.wait_for_selector("svg.board .house")
    page.wait_for_function("() => document.body.dataset.version !== undefined")


def place_by_click(page: Any) -> str:
    """Click a highlighted free house; choose Trader in the piece popup if it opens.  Returns the house."""
    house = page.locator("svg.board g.house.free.hl").first
    key = house.get_attribute("data-key")
    assert key and key.startswith("h:")
    before = version(page)
    house.click()
    popup = page.locator("#popup")
    if popup.is_visible():
        page.keyboard.press("t")
    wait_version_change(page, before)
    return key[2:]


def create_in_lobby(page: Any, bot: str = "heuristic") -> dict[str, Any]:
    """Create a game (a human against a bot) with the lobby's form; returns the server's creation answer."""
    page.select_option("#player-count", "2")
    seats = page.locator("#seats .seat")
    seats.nth(0).locator(".seat-name").fill("Alice")
    seats.nth(1).locator(".seat-type").select_option("bot")
    seats.nth(1).locator(".seat-bot").select_option(bot)
    with page.expect_response(lambda r: urlsplit(r.url).path == "/api/games" and r.request.method == "POST") as info:
        page.click("#create-btn")
    assert info.value.status == 201
    game: dict[str, Any] = info.value.json()
    page.wait_for_selector(f"#my-games .game-item[data-id='{game['id']}']")
    return game


def wait_until(page: Any, condition: Any, timeout: float = 5.0) -> None:
    """Let Playwright deliver events (bindings, sockets) until ``condition()`` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        page.wait_for_timeout(20)


def version(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.version || '-1'"))


def wait_version_change(page: Any, old: int, timeout: float = 15000) -> None:
    page.wait_for_function(f"() => document.body.dataset.version !== undefined && document.body.dataset.version !== '{old}'", timeout=timeout)


def wait_mine_or_over(page: Any, timeout: float = 20000) -> None:
    page.wait_for_function("() => document.body.dataset.mine === '1' || document.body.dataset.status === 'over'", timeout=timeout)


def page_view(page: Any) -> dict[str, Any]:
    return page.evaluate("window.hansaGame.view")  # type: ignore[no-any-return]


def log_count(page: Any) -> int:
    return page.locator("#log .log-move").count()  # type: ignore[no-any-return]


#: A page function listing the texts whose contrast with their background is below WCAG AA (4.5:1, 3:1 for large
#: text): "text colour on background: ratio".
CONTRAST = """
() => {
  const lum = (c) => {
    const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map((v) => { v = v / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const bg = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.backgroundImage !== 'none') return null;  // gradients: judged by eye in the screenshots
      const m = s.backgroundColor.match(/[\\d.]+/g);
      if (m && (m.length < 4 || Number(m[3]) > 0.9)) return s.backgroundColor;
    }
    return 'rgb(255, 255, 255)';
  };
  const bad = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg') || !el.childNodes.length) continue;
    const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent.trim()).join('');
    if (!text || !el.getClientRects().length) continue;
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || Number(s.opacity) < 0.95 || el.closest('[disabled], .covered, .used')) continue;
    const b = bg(el);
    if (!b) continue;
    const [l1, l2] = [lum(s.color), lum(b)].sort((a, c) => c - a);
    const ratio = (l1 + 0.05) / (l2 + 0.05);
    const large = parseFloat(s.fontSize) >= 24 || (parseFloat(s.fontSize) >= 18.66 && Number(s.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) bad.push(`${text.slice(0, 30)} ${s.color} on ${b}: ${ratio.toFixed(2)}`);
  }
  return bad;
}
"""


#: A page function listing the elements sticking out of the viewport sideways (ignoring those inside a box that scrolls or clips them).
SIDEWAYS = """() => {
  const w = document.documentElement.clientWidth;
  const out = [];
  if (document.documentElement.scrollWidth > w) out.push(`page scrollWidth ${document.documentElement.scrollWidth} > ${w}`);
  for (const e of document.querySelectorAll("body *")) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || (r.right <= w + 1 && r.left >= -1)) continue;
    let clipped = false;
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== "visible") { clipped = true; break; }
    }
    if (!clipped) out.push(`${e.tagName.toLowerCase()}.${e.className} [${Math.round(r.left)}, ${Math.round(r.right)}]`);
  }
  return out.slice(0, 10);
}"""
