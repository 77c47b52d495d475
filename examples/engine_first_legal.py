#!/usr/bin/env python3
"""A hansa-engine/1 engine that does not use hansa at all (only the standard library): it answers the first legal
move of the list hansa sends, claiming a route when it can.  Any language that reads and writes lines of JSON can
do the same (docs/engine-protocol.md).

    hansa arena --players 2 --seats "engine:python3 examples/engine_first_legal.py,random" --games 2 --max-moves 600
"""

import json
import sys

PROTOCOL = "hansa-engine/1"


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # one line per message, flushed: hansa waits for it


def decide(request: dict) -> dict:
    legal = request.get("legal")
    if not legal:  # hansa sends the list unless told not to; without it this engine cannot play
        return {"type": "error", "id": request.get("id"), "message": "this engine needs the legal-move list"}
    claims = [m for m in legal if m.startswith("claim ")]
    return {"type": "move", "id": request["id"], "move": (claims or legal)[0]}


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
            kind = message["type"]
        except (ValueError, KeyError, TypeError):
            send({"type": "error", "id": None, "message": "cannot read that line"})
            continue
        if kind == "hello":
            send({"type": "hello", "protocol": PROTOCOL, "name": "first-legal", "author": "hansa examples"})
        elif kind == "decide":
            send(decide(message))
        elif kind == "quit":
            break
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
