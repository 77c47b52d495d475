"""Terminal play: rich rendering of a position (render.py) and the interactive loop of `hansa play` (play.py)."""
