"""The "Learn to play" tutorial: scripted first games on the real engine and table.

A chapter is a JSON file in ``tutorial/`` (package data) made by ``scripts/tutorial_script.py``: the seed, the
players' names and every move of the game in order, each with its seat and, for the learner's moves (seat 0), the
lesson the table explains beside the board.  ``POST /api/tutorial`` creates an ordinary hot-seat game from it
(marked ``table.tutorial``); the browser client (static/js/tutorial.js) lets the learner make only the scripted
move and plays the other seats' moves itself.

A chapter with ``prefix`` (the chapter "end") starts from a late position: its first ``prefix`` moves are played by
the server when the game is created, its other seats are server bots (``bots``: the bot of each seat, None for the
learner), and after the learner's scripted moves the learner plays on freely to the end of the game.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "tutorial"
#: The chapters a client may ask for.
CHAPTERS = ("basics", "end")


@cache
def chapter(name: str) -> dict[str, Any]:
    """The chapter's script (a KeyError for a name not in CHAPTERS)."""
    if name not in CHAPTERS:
        raise KeyError(name)
    data: dict[str, Any] = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    return data


def players(name: str, learner: str) -> list[dict[str, Any]]:
    """The seats of a chapter's game: the learner (named ``learner``) and the scripted players, all human seats of
    one hot-seat table."""
    data = chapter(name)
    names = [learner, *data["names"][1:]]
    bots = data.get("bots") or [None] * len(names)
    return [{"name": n, "type": "bot" if b else "human", "bot": b, "colour": None} for n, b in zip(names, bots)]


def prefix(name: str) -> list[tuple[int, str]]:
    """The moves played when a chapter's game is created (seat, text): none for a chapter that starts at move 0."""
    data = chapter(name)
    return [(s["seat"], s["text"]) for s in data["steps"][: data.get("prefix", 0)]]


def public(name: str) -> dict[str, Any]:
    """What the client needs of a chapter: its moves in order (seat, text, JSON, lesson), the number of them played
    before the learner starts (``prefix``) and the seats the server's bots play."""
    data = chapter(name)
    return {"chapter": name, "seed": data["seed"], "prefix": data.get("prefix", 0), "bots": data.get("bots"),
            "steps": data["steps"]}
