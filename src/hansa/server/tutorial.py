"""The "Learn to play" tutorial: scripted first games on the real engine and table.

A chapter is a JSON file in ``tutorial/`` (package data) made by ``scripts/tutorial_script.py``: the seed, the
players' names and every move of the game in order, each with its seat and, for the learner's moves (seat 0), the
lesson the table explains beside the board.  ``POST /api/tutorial`` creates an ordinary hot-seat game from it
(marked ``table.tutorial``); the browser client (static/js/tutorial.js) lets the learner make only the scripted
move and plays the other seats' moves itself.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "tutorial"
#: The chapters a client may ask for.
CHAPTERS = ("basics",)


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
    names = [learner, *chapter(name)["names"][1:]]
    return [{"name": n, "type": "human", "bot": None, "colour": None} for n in names]


def public(name: str) -> dict[str, Any]:
    """What the client needs of a chapter: its moves in order (seat, text, JSON, lesson)."""
    data = chapter(name)
    return {"chapter": name, "seed": data["seed"], "steps": data["steps"]}
