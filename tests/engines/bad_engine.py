#!/usr/bin/env python3
"""A hansa-engine/1 engine for the tests, standard library only, that misbehaves on purpose.

    bad_engine.py MODE [N]

It plays a random legal move (claims first) from hansa's list for its first N decisions (default 0), then:
``good`` keeps playing; ``crash`` exits with status 5; ``hang`` stops answering; ``illegal`` answers a move that
is not legal; ``malformed`` answers a move message without a move; ``garbage`` writes a line that is not JSON;
``refuse`` answers an error message; ``stderr`` keeps playing but writes junk to stderr before every answer.
``crash-start`` exits before the handshake; ``hello-error`` refuses the handshake; ``slow-hello`` never greets.
"""

import json
import random
import sys
import time


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def good(request: dict, rng: random.Random) -> dict:
    legal = request["legal"]
    claims = [m for m in legal if m.startswith("claim ")]
    return {"type": "move", "id": request["id"], "move": rng.choice(claims or legal)}


def main() -> int:
    mode = sys.argv[1]
    after = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    rng = random.Random(after)
    if mode == "crash-start":
        sys.stderr.write("bad_engine: cannot start (on purpose)\n")
        return 3
    decided = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            if mode == "hello-error":
                send({"type": "error", "id": None, "message": "I speak hansa-engine/0 only"})
            elif mode == "slow-hello":
                time.sleep(3600)
            else:
                send({"type": "hello", "protocol": "hansa-engine/1", "name": f"bad-{mode}", "author": "tests"})
            continue
        if message["type"] == "quit":
            return 0
        decided += 1
        if decided <= after or mode == "good":
            send(good(message, rng))
            continue
        if mode == "crash":
            sys.stderr.write(f"bad_engine: crashing at decision {decided} (on purpose)\n")
            sys.stderr.flush()
            return 5
        if mode == "hang":
            time.sleep(3600)
        elif mode == "illegal":
            send({"type": "move", "id": message["id"], "move": "place T GRO-EMD:9"})
        elif mode == "malformed":
            send({"type": "move", "id": message["id"]})
        elif mode == "garbage":
            sys.stdout.write("Hello from a debug print!\n")
            sys.stdout.flush()
        elif mode == "refuse":
            send({"type": "error", "id": message["id"], "message": "no idea"})
        elif mode == "stderr":
            sys.stderr.write("\x00\xff junk {not json} " * 20 + "\n")
            sys.stderr.flush()
            send(good(message, rng))
        else:
            raise SystemExit(f"unknown mode {mode}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
