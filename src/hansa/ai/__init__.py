"""Standard game-AI interfaces to hansa: a fixed action index (:mod:`hansa.ai.actions`) for learning and search
code.  The core never imports this package."""
