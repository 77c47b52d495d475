"""Summarize the 1-second comparison's journal (``benchmarks/results/ismcts-1s/games.jsonl``) and, with ``--write``,
put its running numbers into the README's Bots row and docs/ai.md, so they are never typed by hand.

    .venv/bin/python scripts/comparison_numbers.py [--write]

``tests/test_arena_results.py`` holds the README row to the journal (count, wins, Wilson interval).  While games were
missing the row carried a running sentence that ``--write`` kept current; once all were in, the row was rewritten once
to state the result (and the tables the command then wrote were committed beside the journal), so ``--write`` now
only explains that there is nothing left to update.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
from pathlib import Path

from hansa.arena import wilson_interval

ROOT = Path(__file__).resolve().parents[1]
JOURNAL = ROOT / "benchmarks" / "results" / "ismcts-1s" / "games.jsonl"
HERO = "mcts:hard"
TRIGGERS = ((("score",), "at 20 points"), (("markers",), "on the marker supply"), (("markers", "score"), "on both"))


def summary() -> dict[str, str]:
    """The journal's numbers, each already worded as the README says it."""
    lines = JOURNAL.read_text(encoding="utf-8").splitlines()
    total = json.loads(lines[0])["games"]
    games = [json.loads(line) for line in lines[1:]]
    n = len(games)
    hero = [next(s for s in g["seats"] if s["spec"] == HERO) for g in games]
    others = [s for g in games for s in g["seats"] if s["spec"] != HERO]
    wins = sum(s["win"] for s in hero)
    lo, hi = wilson_interval(wins, n)
    if not all(g["finished"] for g in games):
        raise SystemExit("a game stopped at the move cap: describe it in the README by hand")
    ends = collections.Counter(tuple(sorted(g["end_triggers"])) for g in games)
    if sum(ends[key] for key, _ in TRIGGERS) != n:
        raise SystemExit(f"unexpected end triggers: {dict(ends)}")
    scores = [s["total"] for s in hero]
    against = [s["total"] for s in others]
    moves = [g["moves"] for g in games]
    minutes = [sum(s["think_seconds"] for s in g["seats"]) / 60 for g in games]
    return {
        "n": str(n),
        "total": str(total),
        "won": f"won all {n}" if wins == n else f"won {wins:g}",
        "won_by": f"all {n} won" if wins == n else f"{wins:g} won",
        "ci": f"Wilson 95 % CI {100 * lo:.1f}–{'100' if hi >= 1 else f'{100 * hi:.1f}'} %",
        "ends": ", ".join(f"{ends[key]} {text}" for key, text in TRIGGERS if ends[key]),
        "scores": f"mean score {sum(scores) / n:.1f}, range {min(scores)}–{max(scores)}, against at most "
                  f"{max(against)}, mean {sum(against) / len(against):.1f}",
        "moves": f"{min(moves):,}–{max(moves):,} moves",
        "hero_s": f"{sum(s['think_seconds'] for s in hero) / sum(s['decisions'] for s in hero):.2f}",
        "other_s": f"{sum(s['think_seconds'] for s in others) / sum(s['decisions'] for s in others):.2f}",
        "minutes": f"{min(minutes):.0f}–{max(minutes):.0f}",
        "mean_minutes": f"{sum(minutes) / n:.1f}",
    }


def _replace(text: str, pattern: str, new: str) -> str:
    text, count = re.subn(pattern, new.replace("\\", "\\\\"), text)
    if count != 1:
        raise SystemExit(f"expected one match of {pattern!r}, found {count}")
    return text


def write(s: dict[str, str]) -> None:
    """Put the numbers into README.md and docs/ai.md in place of the previous ones."""
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    if s["n"] == s["total"] and not re.search(r"After \d+ of the \d+ games", text):
        raise SystemExit(f"all {s['total']} games are in and the README row states the result: nothing to write")
    text = _replace(
        text,
        r"After \d+ of the \d+ games `mcts:hard` has won [^(]*\(Wilson[^)]*\), every one ended \([^)]*\); "
        r"mean score [^;]*; [\d,]+–[\d,]+ moves\. ISMCTS used [\d.]+ s of CPU per decision and `mcts:hard` [\d.]+ s",
        f"After {s['n']} of the {s['total']} games `mcts:hard` has {s['won']} ({s['ci']}), every one ended "
        f"({s['ends']}); {s['scores']}; {s['moves']}. ISMCTS used {s['other_s']} s of CPU per decision and "
        f"`mcts:hard` {s['hero_s']} s",
    )
    text = _replace(text, r"so a game takes \d+–\d+ min of thinking \([\d.]+ on average\)",
                    f"so a game takes {s['minutes']} min of thinking ({s['mean_minutes']} on average)")
    readme.write_text(text, encoding="utf-8")
    doc = ROOT / "docs" / "ai.md"
    text = doc.read_text(encoding="utf-8")
    text = _replace(text, r"takes \d+–\d+ min of CPU a game \([\d.]+ on average\)",
                    f"takes {s['minutes']} min of CPU a game ({s['mean_minutes']} on average)")
    text = _replace(text, r"README \(\d+ of \d+ games played, [^;]*; Wilson 95 % CI [^)]*\)",
                    f"README ({s['n']} of {s['total']} games played, {s['won_by']} by `mcts:hard`; {s['ci']})")
    doc.write_text(text, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="update README.md and docs/ai.md")
    numbers = summary()
    for key, value in numbers.items():
        print(f"{key:>12}: {value}")
    if parser.parse_args().write:
        write(numbers)


if __name__ == "__main__":
    main()
