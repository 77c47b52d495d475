"""The ``hansa`` command line: board data, simulation, replays."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from .core.board import COUNTRIES, board_for_players
from .core.constants import ABILITY_NAMES
from .core.errors import HansaError
from .core.options import GameOptions, parse_option_value
from .core.scoring import categories, final_scores, winners

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Hansa Teutonica: rules engine, simulator and play.")
console = Console()
err = Console(stderr=True, soft_wrap=True)


def _with_map(options: dict[str, object], map_name: str | None) -> dict[str, object]:
    """``--map`` as the ``map`` option."""
    if map_name is not None:
        options["map"] = map_name
    return options


def _fail(message: str) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code=2)


@app.command()
def board(
    players: Annotated[int, typer.Option("--players", "-p", help="Player count (2-5) selecting the board side.")] = 4,
    map_name: Annotated[str, typer.Option("--map", "-m", help="Map: base, east or britannia (3-5 players).")] = "base",
    as_json: Annotated[bool, typer.Option("--json", help="Print the side in the schema of tests/fixtures/boards.json (one side); an expansion map in the schema of its maps.json entry.")] = False,
) -> None:
    """Show the board side used by PLAYERS players on a map."""
    try:
        b = board_for_players(players, map_name)
    except ValueError as exc:
        _fail(str(exc))
        return
    if as_json:
        sys.stdout.write(json.dumps(b.to_json(), indent=1, ensure_ascii=False) + "\n")
        return
    table = Table(title=f"Board side {b.side}: {len(b.cities)} cities, {len(b.routes)} routes, {b.house_count} houses")
    table.add_column("City")
    table.add_column("Code")
    table.add_column("Offices (left to right)")
    table.add_column("Ability")
    if b.countries:
        table.add_column("Country")
    for c in b.cities:
        offices = " ".join(f"{'○' if o.round else '□'}{o.colour}{'$' * o.points if o.coin else ''}" for o in c.offices)
        if c.green:
            offices = "green city (no printed offices)"
        row = [c.name, c.code, offices, " or ".join(ABILITY_NAMES[a] for a in c.abilities)]
        if b.countries:
            row.append("+".join(COUNTRIES[k] for k in range(len(COUNTRIES)) if c.countries >> k & 1))
        table.add_row(*row)
    console.print(table)
    routes = Table(title="Routes")
    routes.add_column("Route")
    routes.add_column("Houses", justify="right")
    routes.add_column("Tavern")
    if b.expansion:
        routes.add_column("Ship spaces")
        routes.add_column("Permanent marker")
    if b.countries:
        routes.add_column("Country")
    for r in b.routes:
        a, z = (b.cities[i].name for i in r.cities)
        row = [f"{r.code} ({a}-{z})", str(r.spaces), "yes" if r.tavern else ""]
        if b.expansion:
            row += [",".join(str(k + 1) for k in r.ships), (r.permanent or "").replace("_", " ")]
        if b.countries:
            row.append(COUNTRIES[r.country])
        routes.add_row(*row)
    console.print(routes)


@app.command()
def simulate(
    players: Annotated[int, typer.Option("--players", "-p", help="Players per game (2-5).")] = 4,
    games: Annotated[int, typer.Option("--games", "-n", help="Number of games.")] = 100,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the first game; game i uses seed+i.")] = 0,
    policy: Annotated[str, typer.Option(help="random (claims whenever it can, else uniform) or uniform.")] = "random",
    records: Annotated[Path | None, typer.Option(help="Write each game's record into this directory.")] = None,
    max_moves: Annotated[int | None, typer.Option(help="Stop a game unfinished after this many moves.")] = None,
    variant: Annotated[str | None, typer.Option(help="Two-player variant: neutral (default) or pawn.")] = None,
    map_name: Annotated[str | None, typer.Option("--map", "-m", help="Map: base (default), east or britannia (3-5 players).")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="Game option NAME=VALUE (repeatable).")] = None,
    check: Annotated[bool, typer.Option("--check", help="Check every engine invariant after every move (slow).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Play GAMES complete games between bots and summarise them."""
    from .bots import BOT_NAMES
    from .sim import simulate as run

    if policy not in BOT_NAMES:
        _fail(f"unknown policy {policy!r}; policies are {', '.join(BOT_NAMES)}")
    if games < 1:
        _fail("--games must be at least 1")
    if policy == "uniform" and max_moves is None:
        max_moves = 100_000
    try:
        options = _parse_options(option or [])
        if map_name is not None:
            options["map"] = map_name
        board_for_players(players, str(options.get("map", "base")))
    except (ValueError, HansaError) as exc:
        _fail(str(exc))
        return
    if variant is not None:
        if players != 2:
            _fail("--variant applies to two-player games only")
        options["two_player_variant"] = variant
    try:
        GameOptions.from_dict(options)
    except HansaError as exc:
        _fail(str(exc))
    progress = Progress(
        TextColumn("[bold]simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
        console=err, transient=True, disable=as_json or not err.is_terminal,
    )
    try:
        with progress:
            task = progress.add_task("games", total=games)
            summary = run(players, games, seed, policy, records, max_moves, on_game=lambda _: progress.advance(task), check=check, options=options)
    except HansaError as exc:
        _fail(str(exc))
        return
    except AssertionError as exc:  # an InvariantError: always an engine bug
        _fail(f"invariant broken: {exc}")
        return
    data = summary.to_json()
    if check:
        data["invariants_checked"] = True
    if as_json:
        sys.stdout.write(json.dumps(data, indent=1) + "\n")
        return
    label = f"{players} players" + (f" ({options.get('two_player_variant', 'neutral')} variant)" if players == 2 else "")
    if options.get("map", "base") != "base":
        label += f", map {options['map']}"
    table = Table(title=f"{games} games, {label}, policy {policy}, seeds {seed}..{seed + games - 1}")
    table.add_column("")
    table.add_column("mean", justify="right")
    table.add_column("sd", justify="right")
    table.add_column("min", justify="right")
    table.add_column("max", justify="right")
    for key, label in (("moves_per_game", "moves per game"), ("turns_per_game", "turns per game"),
                       ("final_score", "final score (all seats)"), ("winning_score", "winning score")):
        s = data[key]
        table.add_row(label, *(str(s[k]) for k in ("mean", "sd", "min", "max")))
    console.print(table)
    triggers = ", ".join(f"{k}: {v}" for k, v in sorted(data["end_triggers"].items())) or "none"
    console.print(f"finished games: {data['finished']}/{games}   end triggers: {triggers}")
    console.print(f"wins by seat: {data['wins_by_seat']}")
    console.print(
        f"[bold]{data['games_per_second']} games/s, {data['moves_per_second']} moves/s[/] "
        f"({summary.total_moves} moves in {data['seconds']} s, {data['engine']} engine)"
    )
    if check:
        console.print("every invariant held after every move")
    if records is not None:
        console.print(f"records written to {records}/")


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="A game record (JSON).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Replay a game record, check it, and print the final score breakdown."""
    from .record import replay_record

    try:
        game = replay_record(file)
    except HansaError as exc:
        _fail(f"{file}: {exc}")
        return
    state = game.state
    scores = final_scores(state)
    wins = winners(state, scores) if state.is_over else []
    if as_json:
        out = {"over": state.is_over, "moves": len(game.moves), "end_triggers": list(state.end_triggers),
               "scores": [s.to_json() for s in scores], "winners": wins}
        sys.stdout.write(json.dumps(out, indent=1) + "\n")
        return
    status = f"game over ({', '.join(state.end_triggers)})" if state.is_over else "game not finished (projected score)"
    table = Table(title=f"{file.name}: {len(game.moves)} moves, {status}")
    table.add_column("Player")
    shown = categories(state)
    for cat in shown:
        table.add_column(cat.replace("_", "-"), justify="right")
    table.add_column("total", justify="right", style="bold")
    for s in scores:
        name = game.names[s.player] + (" ★" if s.player in wins else "")
        table.add_row(name, *(str(getattr(s, c)) for c in shown), str(s.total))
    console.print(table)
    if wins:
        console.print("winner: " + ", ".join(game.names[w] for w in wins) + (" (shared)" if len(wins) > 1 else ""))


@app.command()
def arena(
    seats: Annotated[str | None, typer.Option("--seats", help="Comma list of bot specs, one per seat (e.g. heuristic,purpose,random).")] = None,
    pool: Annotated[str | None, typer.Option("--pool", help="Instead of --seats: a ladder of PLAYERS or more distinct bot specs; the games play every combination of PLAYERS of them in turn, seats rotated, and one table ranks them all (win share and Elo with 95% CIs).")] = None,
    players: Annotated[int, typer.Option("--players", "-p", help="Players per game (2-5); must equal the number of seats.")] = 4,
    games: Annotated[int, typer.Option("--games", "-n", help="Number of games.")] = 100,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Seed of the first game; game i uses seed+i and rotates the seats by i.")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Worker processes (process backend; Ray uses every CPU of the cluster).")] = 1,
    variant: Annotated[str | None, typer.Option(help="Two-player variant: neutral (default) or pawn.")] = None,
    map_name: Annotated[str | None, typer.Option("--map", "-m", help="Map: base (default), east or britannia (3-5 players).")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="Game option NAME=VALUE (repeatable).")] = None,
    max_moves: Annotated[int | None, typer.Option(help="Stop a game unfinished after this many moves.")] = None,
    backend: Annotated[str, typer.Option("--backend", help="Where the games run: process (a local process pool of --jobs workers) or ray (Ray tasks; needs pip install 'hansa\\[ray]').")] = "process",
    address: Annotated[str | None, typer.Option("--address", help="Ray cluster to use with --backend ray: auto, HOST:PORT or ray://HOST:10001 (default: RAY_ADDRESS if set, else a local Ray).")] = None,
    clock: Annotated[str, typer.Option("--clock", help="What time budgets (mcts:hard, seconds=S) count: wall (real time) or cpu (the thinking thread's CPU time: fair on a busy machine).")] = "wall",
    out: Annotated[Path, typer.Option("--out", help="Directory for results.json, games.csv, bots.csv, scores.png.")] = Path("arena-results"),
    records: Annotated[bool, typer.Option("--records", help="Also write every game's record into OUT/records/.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print results.json to stdout instead of tables.")] = False,
    resume: Annotated[bool, typer.Option("--resume", help="Go on with a stopped run: the games in OUT/games.jsonl (every finished game is written there at once) are not played again.")] = False,
) -> None:
    """Play GAMES games between the bots of SEATS (seats rotated), or of every combination of a POOL's bots (a ladder),
    and compare them: win shares, scores, ratings."""
    from rich.markup import escape

    from .arena import ArenaConfig, ArenaError, print_summary, read_journal, run_arena, write_outputs

    if (seats is None) == (pool is None):
        _fail("give --seats (one bot spec per seat) or --pool (a ladder of bots), not both" if seats is not None
              else "give --seats (one bot spec per seat) or --pool (a ladder of bots)")
        return
    try:
        options = _with_map(_parse_options(option or []), map_name)
        config = ArenaConfig.build(players, seats if seats is not None else pool or "", games, seed, jobs, options,
                                   variant, max_moves, out / "records" if records else None, backend=backend,
                                   address=address, clock=clock, pool=pool is not None)
    except (ArenaError, HansaError) as exc:
        _fail(escape(str(exc)))
        return
    journal = out / "games.jsonl"
    try:
        done = read_journal(journal, config) if resume else []
        if not resume:
            journal.unlink(missing_ok=True)
    except (ArenaError, OSError) as exc:
        _fail(escape(str(exc)))
        return
    progress = Progress(
        TextColumn("[bold]arena"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
        console=err, transient=True, disable=as_json or not err.is_terminal,
    )
    try:
        with progress:
            task = progress.add_task("games", total=games - len(done))
            result = run_arena(config, on_game=lambda _: progress.advance(task), journal=journal, done=done)
        paths = write_outputs(result, out)
    except (ArenaError, HansaError, OSError) as exc:
        _fail(escape(str(exc)))
        return
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), indent=1) + "\n")
        return
    print_summary(result, console)
    console.print(f"results written to {', '.join(str(p) for p in paths.values())}"
                  + (f"; records in {config.records_dir}/" if records else ""))


@app.command()
def play(
    players: Annotated[int | None, typer.Option("--players", "-p", help="Players (2-5); default 4, or the record's.")] = None,
    bots: Annotated[int | None, typer.Option("--bots", "-b", help="The last K seats are bots (default: all but one).")] = None,
    level: Annotated[str, typer.Option("--level", help="Bot level for --bots: random, purpose, heuristic, mcts:easy|medium|hard.")] = "heuristic",
    seats: Annotated[str | None, typer.Option("--seats", help="Every seat's kind, e.g. human,heuristic,mcts:easy.")] = None,
    names: Annotated[str | None, typer.Option("--names", help="Comma-separated player names.")] = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="Game seed (start player, markers); random if omitted.")] = None,
    variant: Annotated[str | None, typer.Option(help="Two-player variant: neutral (default) or pawn.")] = None,
    map_name: Annotated[str | None, typer.Option("--map", "-m", help="Map: base (default), east or britannia (3-5 players).")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="Game option NAME=VALUE (repeatable).")] = None,
    load: Annotated[Path | None, typer.Option("--load", help="Resume a saved game record.")] = None,
    view: Annotated[str, typer.Option("--view", help="Table layout: auto (from the terminal size), compact (fits 80x24) or full.")] = "auto",
) -> None:
    """Play in the terminal against bots and/or people at the same keyboard."""
    from .tui.play import play_command

    try:
        code = play_command(players=players, bots=bots, seats=seats, level=level, names=names, seed=seed,
                            variant=variant, options=_with_map(_parse_options(option or []), map_name), load=load, view=view)
    except HansaError as exc:
        _fail(str(exc))
        return
    raise typer.Exit(code)


def serve(
    host: str = "127.0.0.1", port: int = 8000, database_url: str | None = None, workers: int = 1,
    **settings: object,
) -> None:
    """Start the web app (lobby, games against bots or friends, replays) and print its address.  Every limit has a
    flag and an environment variable (docs/api.md).  ``--workers N`` runs N server processes on the port (they
    share a PostgreSQL database, which is the single source of truth)."""
    from dataclasses import fields

    from .server import supervisor
    from .server.app import create_app
    from .server.config import ServerConfig
    from .server.protocols import LimitedHttpProtocol, LimitedWebSocketProtocol, trusted_proxies

    url = database_url or os.environ.get("HANSA_DATABASE_URL") or "sqlite:///hansa.sqlite3"
    try:
        config = ServerConfig.from_env(settings)
        proxies = trusted_proxies(config.forwarded_allow_ips)
    except ValueError as exc:
        _fail(str(exc))
        return
    if not 1 <= workers <= 64:
        _fail("--workers: 1 to 64 processes")
        return
    if config.bots == "queue" and not url.startswith("postgresql"):
        _fail("--bots queue needs a PostgreSQL database (the bot workers share it with the web processes)")
        return
    if workers > 1 and not url.startswith("postgresql"):
        _fail("--workers above 1 needs a PostgreSQL database (--database-url postgresql://...): SQLite is for one "
              "process")
        return
    supervisor.raise_fd_limit()  # every connection is a file: allow as many as the system lets this process have

    def waiting(exc: OSError) -> None:
        err.print(f"port {port} is still in use ({exc.strerror}): trying again for up to "
                  f"{supervisor.BIND_WAIT:g} s", highlight=False)

    try:
        socks = supervisor.bind_listeners(host, port, on_wait=waiting)
    except OSError as exc:
        _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
        return
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0") else host
    console.print(f"[bold]hansa[/] web app on [link]http://{shown}:{port}/[/link]  (database: {url}"
                  + (f", {workers} processes" if workers > 1 else "") + ")", highlight=False)
    # Hand the GIL over every 1 ms instead of 5 ms: the database thread and the event loop share it, and a
    # move waiting for it is latency a player feels.
    sys.setswitchinterval(0.001)
    common: dict[str, Any] = {
        "host": host, "port": port, "log_level": "warning", "timeout_keep_alive": 75, "http": LimitedHttpProtocol,
        "ws": LimitedWebSocketProtocol, "ws_max_size": config.ws_max_message, "ws_per_message_deflate": False,
        # X-Forwarded-For / -Proto only from the proxies of --forwarded-allow-ips (none by default; uvicorn's own
        # default trusts 127.0.0.1, which let a local client pick its address for every request)
        "proxy_headers": not proxies.none, "forwarded_allow_ips": proxies.uvicorn_value,
    }
    if workers == 1:
        status = supervisor.serve(socks, 1, create_app(url, config), common)
    else:
        # Each worker process builds its app from the environment: hand the settings over there.
        os.environ["HANSA_DATABASE_URL"] = url
        for f in fields(ServerConfig):
            os.environ[f.metadata["env"]] = str(getattr(config, f.name))
        status = supervisor.serve(socks, workers, None, common)
    if status:
        raise typer.Exit(code=status)


def _serve_signature() -> None:
    """``hansa serve``'s options: host, port, database URL, and one flag per field of ServerConfig (its env
    variable and default in the help), so that the flags, the variables and docs/api.md cannot drift apart."""
    import inspect
    from dataclasses import fields

    from .server.config import ServerConfig, settings_table

    help_of = {flag: (env, default, meaning) for flag, env, default, meaning in settings_table()}
    params = [
        inspect.Parameter("host", inspect.Parameter.KEYWORD_ONLY, default="127.0.0.1",
                          annotation=Annotated[str, typer.Option(help="Interface to listen on.")]),
        inspect.Parameter("port", inspect.Parameter.KEYWORD_ONLY, default=8000,
                          annotation=Annotated[int, typer.Option(help="TCP port.")]),
        inspect.Parameter("database_url", inspect.Parameter.KEYWORD_ONLY, default=None,
                          annotation=Annotated[str | None, typer.Option(
                              help="SQLAlchemy URL: sqlite:///FILE (default hansa.sqlite3) or postgresql://... "
                                   "(env HANSA_DATABASE_URL).")]),
        inspect.Parameter("workers", inspect.Parameter.KEYWORD_ONLY, default=1,
                          annotation=Annotated[int, typer.Option(
                              help="Server processes on the port (above 1 needs PostgreSQL).")]),
    ]
    for f in fields(ServerConfig):
        flag = "--" + f.name.replace("_", "-")
        env, default, meaning = help_of[flag]
        kind = type(f.default)
        params.append(inspect.Parameter(
            f.name, inspect.Parameter.KEYWORD_ONLY, default=None,
            annotation=Annotated[kind | None, typer.Option(flag, help=f"{meaning[0].upper()}{meaning[1:]} (env {env}; default {default}).",
                                                            show_default=False)],
        ))

    def command(**kwargs: object) -> None:
        serve(**kwargs)  # type: ignore[arg-type]

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__doc__ = serve.__doc__
    app.command("serve")(command)


_serve_signature()


@app.command()
def bots(
    database_url: Annotated[str | None, typer.Option(
        help="The database of the web processes (default $HANSA_DATABASE_URL); PostgreSQL.")] = None,
    workers: Annotated[int, typer.Option("--workers", "-w", help="Worker processes (each plays one bot turn at a time).")] = 1,
    bot_lease: Annotated[float | None, typer.Option(help="Seconds a worker holds a bot turn before another may take it (env HANSA_BOT_LEASE; default 30).")] = None,
    bot_delay: Annotated[float | None, typer.Option(help="Seconds after a game's last change before its bot moves (env HANSA_BOT_DELAY; default 0.3).")] = None,
) -> None:
    """Play the bot turns of the games of web processes started with --bots queue, in WORKERS processes (any
    number, on any machine that reaches the database; a killed worker's turn is taken by another)."""
    from .server.botworker import run_workers
    from .server.config import ServerConfig

    url = database_url or os.environ.get("HANSA_DATABASE_URL") or ""
    if not url.startswith("postgresql"):
        _fail("hansa bots needs the web processes' PostgreSQL database (--database-url postgresql://...)")
        return
    if not 1 <= workers <= 256:
        _fail("--workers: 1 to 256 processes")
        return
    try:
        config = ServerConfig.from_env({"bot_lease": bot_lease, "bot_delay": bot_delay})
    except ValueError as exc:
        _fail(str(exc))
        return
    console.print(f"[bold]hansa bots[/]: {workers} worker process{'es' if workers > 1 else ''} on {url}", highlight=False)
    run_workers(url, config, workers)


@app.command("bot-bridge")
def bot_bridge(
    server: Annotated[str, typer.Option("--server", help="The hansa server (http://HOST:PORT), or the game's page http://HOST:PORT/game/ID.")],
    engine: Annotated[str, typer.Option("--engine", help="The engine's command line (shlex rules, no shell), speaking hansa-engine/1.")],
    token: Annotated[str | None, typer.Option("--token", help="The seat's token (its link's #token=...; env HANSA_TOKEN).", envvar="HANSA_TOKEN")] = None,
    account: Annotated[str | None, typer.Option("--account", help="Play as this account (instead of --token): the seat it holds in --game, or the one it takes at --table.")] = None,
    password_file: Annotated[str | None, typer.Option("--password-file", help="File whose first line is the account's password (else env HANSA_BOT_PASSWORD; never on the command line).")] = None,
    table: Annotated[str | None, typer.Option("--table", help="With --account: take a seat at this open table, wait until it starts, play its game.")] = None,
    table_wait: Annotated[float, typer.Option("--table-wait", help="With --table: give up if the table has not started after this many seconds.")] = 3600.0,
    game: Annotated[str | None, typer.Option("--game", help="The game's id (when --server is not the game's page).")] = None,
    seconds: Annotated[float, typer.Option("--seconds", help="Time budget per decision sent to the engine.")] = 5.0,
    fallback: Annotated[str, typer.Option("--fallback", help="Bot that plays a decision the engine fails: random, uniform, purpose, heuristic or mcts.")] = "random",
    reconnect_for: Annotated[float, typer.Option("--reconnect-for", help="Give up after this many seconds without a connection.")] = 60.0,
) -> None:
    """Play one seat of a game on a hansa server with an engine (docs/engine-protocol.md), through the server's
    public API, as a seat token or as an account (signed in; --game or --table); ends when the game ends,
    reconnecting after a dropped connection."""
    import os

    from .engine import EngineBot
    from .engine.account import AccountSession, read_password
    from .engine.bridge import Bridge, BridgeError, server_base

    def say(text: str) -> None:
        err.print(text, highlight=False, markup=False)

    session: AccountSession | None = None
    try:
        if account is None and (password_file is not None or table is not None):
            raise BridgeError("--password-file and --table go with --account")
        if account is not None and token is not None:
            raise BridgeError("play as a seat (--token) or as an account (--account), not both")
        if account is None and token is None:
            raise BridgeError("give --token (a seat's token) or --account NAME with its password")
        if table is not None and game is not None:
            raise BridgeError("--table or --game, not both")
        if not 0 < table_wait <= 7 * 86400:
            raise BridgeError("--table-wait: above 0 and at most 604800 seconds")
        if account is not None:
            session = AccountSession(server_base(server), account, read_password(password_file, dict(os.environ)))
            session.sign_in()
            say(f"bot-bridge: signed in as {account}")
            if table is not None:
                game = session.join_table(table, table_wait, say)
        bot = EngineBot(engine, seconds=seconds, fallback=fallback)
        bridge = Bridge(server, token, bot, game, account=session, reconnect_for=reconnect_for, say=say)
    except (ValueError, OSError, BridgeError) as exc:
        if session is not None:
            session.close()
        _fail(str(exc))
        return
    err.print(f"bot-bridge: {bot.label} plays game {bridge.game} on {bridge.base}", highlight=False, markup=False)
    try:
        result = bridge.run()
    except BridgeError as exc:
        _fail(str(exc))
        return
    console.print(f"game {bridge.game} {result.status}: {result.moves} moves posted, {result.fallbacks} played by the "
                  f"fallback bot ({fallback}), {result.connections} connection(s)", highlight=False, markup=False)


db_app = typer.Typer(no_args_is_help=True, help="Database maintenance for `hansa serve`.")
app.add_typer(db_app, name="db")


@db_app.command("check")
def db_check(
    database_url: Annotated[
        str | None, typer.Option(help="SQLAlchemy URL (default $HANSA_DATABASE_URL or sqlite:///hansa.sqlite3).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Replay every stored game and report the damaged ones (the first bad move of each); exit 1 if any."""
    from .server.db import make_engine, migrate
    from .server.store import check_database

    url = database_url or os.environ.get("HANSA_DATABASE_URL") or "sqlite:///hansa.sqlite3"
    engine = make_engine(url)
    try:
        migrate(engine)
        report = check_database(engine)
    except Exception as exc:  # noqa: BLE001 - no database, wrong URL, ...
        _fail(f"cannot read the database {url}: {exc}")
        return
    finally:
        engine.dispose()
    if as_json:
        sys.stdout.write(json.dumps(report, indent=1) + "\n")
    else:
        console.print(f"{report['games']} games checked in {url}", highlight=False)
        for d in report["damaged"]:
            where = f" (move {d['move']})" if d["move"] else ""
            console.print(f"[bold red]damaged[/] {d['id']}{where}: {d['reason']}", highlight=False)
        for game_id in report["snapshot_differs"]:
            console.print(f"[yellow]snapshot differs[/] {game_id}: the stored snapshot is not the replayed record's "
                          "(harmless: the record wins)", highlight=False)
        if not report["damaged"]:
            console.print("[green]no damaged games[/]")
    if report["damaged"]:
        raise typer.Exit(code=1)


admin_app = typer.Typer(no_args_is_help=True, help="Moderation of a `hansa serve` club: reports, chat, accounts.")
app.add_typer(admin_app, name="admin")
DatabaseUrl = Annotated[
    str | None, typer.Option(help="SQLAlchemy URL (default $HANSA_DATABASE_URL or sqlite:///hansa.sqlite3).")
]


def _moderation(database_url: str | None) -> Any:
    """The moderation acts on the server's database (logged as ``cli``)."""
    from .server.db import make_engine, migrate
    from .server.moderation import Moderation

    url = database_url or os.environ.get("HANSA_DATABASE_URL") or "sqlite:///hansa.sqlite3"
    engine = make_engine(url)
    migrate(engine)
    return Moderation(engine)


def _act(what: Any) -> Any:
    from .server.errors import ServiceError

    try:
        return what()
    except ServiceError as exc:
        _fail(exc.message)


@admin_app.command("reports")
def admin_reports(
    database_url: DatabaseUrl = None, all_reports: Annotated[bool, typer.Option("--all", help="Resolved ones too.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print them as JSON.")] = False,
) -> None:
    """List the reported chat messages (open ones; --all: resolved ones too), oldest first."""
    rows = _moderation(database_url).reports(all_reports, 500)
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    if not rows:
        console.print("no reports")
    for r in rows:
        state = f"resolved by {r['resolved_by']}" if r["resolved"] else "open"
        hidden = " (hidden)" if r["hidden"] else ""
        console.print(f"#{r['id']} game {r['game']} message {r['n']}{hidden} by {r['author']}: {r['text']!r} — "
                      f"reported by {r['reporter']} ({r['reason'] or 'no reason'}) at {r['at']}; {state}",
                      highlight=False, markup=False)


@admin_app.command("resolve")
def admin_resolve(report: int, database_url: DatabaseUrl = None) -> None:
    """Mark a report dealt with."""
    _act(lambda: _moderation(database_url).resolve(report, "cli"))
    console.print(f"report #{report} resolved")


@admin_app.command("hide")
def admin_hide(game: str, n: int, database_url: DatabaseUrl = None,
               show: Annotated[bool, typer.Option("--show", help="Show it again instead.")] = False) -> None:
    """Hide message N of GAME's chat (its words are no longer served; pages showing it are told on PostgreSQL)."""
    _act(lambda: _moderation(database_url).hide(game, n, "cli", not show))
    console.print(f"message {n} of game {game} {'shown again' if show else 'hidden'}")


@admin_app.command("mute")
def admin_mute(name: str, database_url: DatabaseUrl = None,
               off: Annotated[bool, typer.Option("--off", help="Unmute instead.")] = False) -> None:
    """Mute an account in every game's chat (its next message is refused)."""
    shown = _act(lambda: _moderation(database_url).mute(name, "cli", not off))
    console.print(f"{shown} {'may chat again' if off else 'is muted in chat'}", highlight=False, markup=False)


@admin_app.command("disable")
def admin_disable(name: str, database_url: DatabaseUrl = None,
                  note: Annotated[str | None, typer.Option(help="Why (kept in the log).")] = None) -> None:
    """Disable an account: its sessions end, it cannot sign in or act; its running seats go to the timeout bot."""
    shown = _act(lambda: _moderation(database_url).disable(name, "cli", True, note))
    console.print(f"{shown} is disabled", highlight=False, markup=False)


@admin_app.command("enable")
def admin_enable(name: str, database_url: DatabaseUrl = None) -> None:
    """Enable a disabled account again (its player may take back seats the timeout bot plays)."""
    shown = _act(lambda: _moderation(database_url).disable(name, "cli", False))
    console.print(f"{shown} is enabled", highlight=False, markup=False)


@admin_app.command("make-admin")
def admin_make_admin(name: str, database_url: DatabaseUrl = None,
                     off: Annotated[bool, typer.Option("--off", help="Remove the right instead.")] = False) -> None:
    """Let an account use the admin routes (/api/admin/...)."""
    shown = _act(lambda: _moderation(database_url).make_admin(name, "cli", not off))
    console.print(f"{shown} {'is no longer' if off else 'is'} an administrator", highlight=False, markup=False)


@admin_app.command("log")
def admin_log(database_url: DatabaseUrl = None, limit: int = 50,
              as_json: Annotated[bool, typer.Option("--json", help="Print it as JSON.")] = False) -> None:
    """The moderation log, newest first: who did what, when."""
    rows = _moderation(database_url).entries(limit)
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    for r in rows:
        note = f" — {r['note']}" if r["note"] else ""
        console.print(f"{r['at']} {r['actor']}: {r['action']} {r['target']}{note}", highlight=False, markup=False)


def _parse_options(items: list[str]) -> dict[str, object]:
    """``NAME=VALUE`` strings to a typed options mapping (validated later by GameOptions)."""
    out: dict[str, object] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise HansaError(f"options are NAME=VALUE, not {item!r}")
        out[name.strip()] = parse_option_value(name.strip(), value.strip())
    return out


def main() -> None:  # pragma: no cover - console entry
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
