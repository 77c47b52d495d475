"""The server's limits and knobs: one documented default each, a ``hansa serve`` flag and an environment variable.

``ServerConfig()`` holds the defaults; :meth:`ServerConfig.from_env` reads ``HANSA_*`` variables over them;
``hansa serve --flag`` overrides both.  docs/api.md lists every field (a test keeps the two in step).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any


def _cpus() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def _setting(default: Any, env: str, help: str) -> Any:
    return field(default=default, metadata={"env": env, "help": help})


@dataclass(frozen=True)
class ServerConfig:
    """Every limit of the server.  Sizes are bytes, times seconds, rates per client IP address."""

    max_body: int = _setting(64 * 1024, "HANSA_MAX_BODY", "largest request body (413 above)")
    max_header: int = _setting(16 * 1024, "HANSA_MAX_HEADER", "largest request line + headers (431 above)")
    max_name: int = _setting(30, "HANSA_MAX_NAME", "longest player name, in characters")
    max_move_text: int = _setting(200, "HANSA_MAX_MOVE_TEXT", "longest move text, in characters")
    create_per_minute: int = _setting(10, "HANSA_CREATE_PER_MINUTE", "games one client may create per minute (429)")
    max_live_games: int = _setting(1000, "HANSA_MAX_LIVE_GAMES", "running games on the server (429 to create more)")
    max_live_games_per_client: int = _setting(
        20, "HANSA_MAX_LIVE_GAMES_PER_CLIENT", "running games one client may have created (429 to create more)"
    )
    max_moves: int = _setting(
        5000, "HANSA_MAX_MOVES",
        "moves after which any game is stopped (the move cap; the game's note says so); real games end far sooner",
    )
    forwarded_allow_ips: str = _setting(
        "", "HANSA_FORWARDED_ALLOW_IPS",
        "comma list of proxy addresses whose X-Forwarded-For and X-Forwarded-Proto are trusted; empty: none, *: any",
    )
    header_timeout: float = _setting(
        10.0, "HANSA_HEADER_TIMEOUT", "a client must send a request's line and headers within this time (408 after)"
    )
    http_per_client: int = _setting(
        64, "HANSA_HTTP_PER_CLIENT",
        "connections open at once from one client, WebSockets included (more are refused with 429)",
    )
    ws_per_game: int = _setting(50, "HANSA_WS_PER_GAME", "WebSockets open on one game (429)")
    ws_per_client: int = _setting(20, "HANSA_WS_PER_CLIENT", "WebSockets open from one client (429)")
    ws_per_seat: int = _setting(4, "HANSA_WS_PER_SEAT", "WebSockets open on one game with one seat's token (429)")
    ws_max_message: int = _setting(4096, "HANSA_WS_MAX_MESSAGE", "largest WebSocket message a client may send")
    ws_messages_per_second: float = _setting(
        5.0, "HANSA_WS_MESSAGES_PER_SECOND", "messages a client may send per second on one socket (burst 20)"
    )
    ws_send_timeout: float = _setting(
        10.0, "HANSA_WS_SEND_TIMEOUT", "a socket that takes longer to accept a message is dropped"
    )
    lock_timeout: float = _setting(10.0, "HANSA_LOCK_TIMEOUT", "longest wait for a busy game (503, nothing changed)")
    undo_per_minute: float = _setting(
        30.0, "HANSA_UNDO_PER_MINUTE", "undos one seat may ask for per minute, in bursts of up to 10 (429)"
    )
    votes_per_minute: float = _setting(
        6.0, "HANSA_VOTES_PER_MINUTE", "takeover votes one seat may cast or withdraw per minute, bursts of 3 (429)"
    )
    replay_cache: int = _setting(
        64 * 1024 * 1024, "HANSA_REPLAY_CACHE",
        "bytes of built move logs, histories, records and replayed positions kept in memory (least recently used go)",
    )
    replay_per_client: int = _setting(
        2, "HANSA_REPLAY_PER_CLIENT",
        "log, history, record and replay answers one client may have in the making at once (429 beyond)",
    )
    replay_processes: int = _setting(
        1, "HANSA_REPLAY_PROCESSES",
        "worker processes that build log, history, record and replay answers (0: a thread of the server)",
    )
    bot_processes: int = _setting(_cpus(), "HANSA_BOT_PROCESSES", "worker processes for MCTS bots (0: threads)")
    engines: str = _setting(
        "", "HANSA_ENGINES",
        "engine programs bot seats may use, NAME=COMMAND;NAME=COMMAND (a client chooses engine:NAME, never a command; "
        "docs/engine-protocol.md); empty: none",
    )
    engine_seconds: float = _setting(
        5.0, "HANSA_ENGINE_SECONDS", "time budget of one engine seat decision (2 s of grace more before it counts as hung)"
    )
    bot_delay: float = _setting(0.3, "HANSA_BOT_DELAY", "pause before each bot move, to be watchable")
    bot_move_budget: int = _setting(
        20_000, "HANSA_BOT_MOVE_BUDGET", "moves after which a game of bots only is stopped"
    )
    abandon_after: float = _setting(
        7 * 24 * 3600.0, "HANSA_ABANDON_AFTER", "a running game idle this long is marked abandoned"
    )
    evict_after: float = _setting(
        600.0, "HANSA_EVICT_AFTER", "an idle game nobody watches leaves memory (loaded again on demand)"
    )
    janitor_interval: float = _setting(30.0, "HANSA_JANITOR_INTERVAL", "how often idle games are looked for")
    db_busy_timeout: float = _setting(
        5.0, "HANSA_DB_BUSY_TIMEOUT", "SQLite: how long a write waits for a lock before it fails (and is retried)"
    )
    lobby_cache: float = _setting(1.0, "HANSA_LOBBY_CACHE", "seconds a lobby page is served from memory")
    clock_poll: float = _setting(
        30.0, "HANSA_CLOCK_POLL",
        "longest wait between two looks for a clock that ran out (moves in this process wake the timer at once)",
    )
    takeover_after: float = _setting(
        86400.0, "HANSA_TAKEOVER_AFTER",
        "a human seat deciding this long without a move may be handed to a bot on a vote of the other players",
    )
    webhook_hosts: str = _setting(
        "", "HANSA_WEBHOOK_HOSTS",
        "comma list of hosts (host, *.domain, or an IP address) seat webhooks may call; empty: webhooks are off",
    )
    webhook_timeout: float = _setting(5.0, "HANSA_WEBHOOK_TIMEOUT", "how long one webhook call may take")
    webhook_delay: float = _setting(
        2.0, "HANSA_WEBHOOK_DELAY",
        "a your-turn notice waits this long and is sent only if the decision is still with that seat",
    )
    webhook_interval: float = _setting(
        30.0, "HANSA_WEBHOOK_INTERVAL", "at most one notice per seat in this time (hand-overs meanwhile are coalesced)"
    )
    webhook_suspend_after: int = _setting(
        5, "HANSA_WEBHOOK_SUSPEND_AFTER",
        "notices in a row a seat's webhook may fail before it is suspended (until its player sets it again)",
    )
    bots: str = _setting(
        "inline", "HANSA_BOTS",
        "inline: this process plays the bot seats; queue: `hansa bots` worker processes do (PostgreSQL only)",
    )
    bot_lease: float = _setting(
        30.0, "HANSA_BOT_LEASE", "queue: how long a bot worker holds a bot turn before another worker may take it"
    )
    rating_interval: float = _setting(
        5.0, "HANSA_RATING_INTERVAL", "how often finished rated games not yet rated are looked for (and rated)"
    )
    public_url: str = _setting(
        "", "HANSA_PUBLIC_URL", "the server's address as players reach it (https://...), for links in webhook notices and e-mails"
    )
    session_days: float = _setting(30.0, "HANSA_SESSION_DAYS", "a signed-in session ends this many days after sign-in")
    sign_in_failures_per_name: int = _setting(
        5, "HANSA_SIGN_IN_FAILURES_PER_NAME",
        "failed sign-ins to one account name within --sign-in-block seconds before the name is blocked (429)",
    )
    sign_in_failures_per_address: int = _setting(
        20, "HANSA_SIGN_IN_FAILURES_PER_ADDRESS",
        "failed sign-ins from one client within --sign-in-block seconds before the client is blocked (429)",
    )
    sign_in_block: float = _setting(
        900.0, "HANSA_SIGN_IN_BLOCK", "seconds failed sign-ins are counted over, and a blocked name or client waits"
    )
    signups_per_hour: int = _setting(10, "HANSA_SIGNUPS_PER_HOUR", "accounts one client may create per hour (429)")
    chat_per_minute: int = _setting(
        12, "HANSA_CHAT_PER_MINUTE",
        "chat messages one seat (or spectator) may send per minute, bursts of 5; an address three times that (429)",
    )
    chat_max: int = _setting(300, "HANSA_CHAT_MAX", "longest chat message, in characters")
    table_expiry: float = _setting(
        3600.0, "HANSA_TABLE_EXPIRY", "an open table whose seats are not all taken within this time closes"
    )
    max_open_tables_per_account: int = _setting(
        5, "HANSA_MAX_OPEN_TABLES_PER_ACCOUNT", "open tables one account may have created at once (429)"
    )

    smtp_url: str = _setting(
        "", "HANSA_SMTP_URL",
        "the SMTP server e-mail goes through: smtp://user:password@host:port?starttls=1 (all but the host optional) "
        "or smtps://... (TLS from the start); empty: no e-mail; needs --public-url (the e-mails' links)",
    )
    mail_from: str = _setting(
        "", "HANSA_MAIL_FROM", "the From address of e-mails; empty: hansa@ the host of --public-url"
    )
    notice_period: float = _setting(
        3600.0, "HANSA_NOTICE_PERIOD",
        "at most one e-mail (turn notice or reminder) per game and account in this time; later ones wait",
    )
    reminder_before: float = _setting(
        6 * 3600.0, "HANSA_REMINDER_BEFORE",
        "a reminder e-mail this long before a turn-based seat's time runs out (0: no reminders)",
    )
    mail_interval: float = _setting(
        30.0, "HANSA_MAIL_INTERVAL", "how often turn notices to make and e-mails to send are looked for"
    )
    mail_retry: float = _setting(
        60.0, "HANSA_MAIL_RETRY",
        "a failed e-mail is tried again after this, doubled at each failure (at most 6 h; given up after 8 tries)",
    )

    @classmethod
    def from_env(cls, overrides: dict[str, Any] | None = None, environ: Mapping[str, str] | None = None) -> ServerConfig:
        """The defaults, then ``HANSA_*`` variables, then ``overrides`` (None values are ignored)."""
        env = os.environ if environ is None else environ
        defaults = cls()
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f.metadata["env"])
            if raw is not None and raw.strip():
                kind: type = type(getattr(defaults, f.name))
                try:
                    values[f.name] = kind(float(raw)) if kind is int else kind(raw)
                except ValueError as exc:
                    raise ValueError(f"{f.metadata['env']}={raw!r} is not a {kind.__name__}") from exc
        values.update({k: v for k, v in (overrides or {}).items() if v is not None})
        config = replace(defaults, **values)
        config.check()
        return config

    def check(self) -> None:
        """Refuse settings that cannot work (a negative size, no WebSocket allowed, ...)."""
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, str):
                if len(value) > 2000:
                    raise ValueError(f"{f.name} is too long")
                continue
            if value < 0:
                raise ValueError(f"{f.name} must not be negative (got {value})")
        for name in ("max_body", "max_header", "max_name", "max_move_text", "ws_max_message", "max_live_games",
                     "max_live_games_per_client", "max_moves", "http_per_client", "ws_per_seat", "replay_per_client",
                     "webhook_suspend_after", "sign_in_failures_per_name", "sign_in_failures_per_address",
                     "signups_per_hour", "max_open_tables_per_account", "chat_per_minute", "chat_max"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.bots not in ("inline", "queue"):
            raise ValueError(f"bots must be inline or queue (got {self.bots!r})")
        if self.bot_lease < 1:
            raise ValueError("bot_lease must be at least 1 second")
        if self.rating_interval <= 0:
            raise ValueError("rating_interval must be above 0 seconds")
        if self.header_timeout <= 0:
            raise ValueError("header_timeout must be above 0 seconds")
        if self.undo_per_minute <= 0 or self.votes_per_minute <= 0:
            raise ValueError("undo_per_minute and votes_per_minute must be above 0")
        if self.session_days <= 0 or self.sign_in_block <= 0 or self.table_expiry <= 0:
            raise ValueError("session_days, sign_in_block and table_expiry must be above 0")
        if self.mail_interval <= 0 or self.mail_retry <= 0:
            raise ValueError("mail_interval and mail_retry must be above 0 seconds")
        if self.smtp_url:
            from .mail import parse_smtp_url  # the one parser of SMTP URLs

            parse_smtp_url(self.smtp_url)
            if not self.public_url.startswith(("http://", "https://")):
                raise ValueError("smtp_url needs public_url (http:// or https://): e-mails link to the server")
        if self.engines:
            from .engines import parse_engines

            parse_engines(self.engines)
        if not 0 < self.engine_seconds <= 3600:
            raise ValueError("engine_seconds must be above 0 and at most 3600")
        if self.max_header < 1024:
            raise ValueError("max_header must be at least 1024 bytes")


def settings_table() -> list[tuple[str, str, str, str]]:
    """``(flag, environment variable, default, meaning)`` for every setting (docs and ``--help``)."""
    out = []
    default = ServerConfig()
    for f in fields(ServerConfig):
        flag = "--" + f.name.replace("_", "-")
        value = getattr(default, f.name)
        shown = "the cores" if f.name == "bot_processes" else (repr(value) if isinstance(value, str) else str(value))
        out.append((flag, f.metadata["env"], shown, f.metadata["help"]))
    return out
