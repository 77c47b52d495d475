#!/usr/bin/env python3
"""An engine for hansa's engine protocol (hansa-engine/1, docs/engine-protocol.md) in a few lines, using
hansa.engine.serve: a random bot ("random with purpose" unless another bot spec is given).

    hansa arena --players 3 --seats "engine:python examples/engine_random.py,purpose,random" --games 4
    python examples/engine_random.py heuristic     # speaks the protocol on stdin/stdout
"""

import sys

from hansa.bots import make_bot
from hansa.engine import serve


def main() -> int:
    spec = sys.argv[1] if len(sys.argv) > 1 else "purpose"
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else None
    bot = make_bot(spec, seed)  # any hansa.bots.base.Bot, or a function: state -> move
    return serve(bot, name=f"example-{spec}", author="hansa examples")


if __name__ == "__main__":
    raise SystemExit(main())
