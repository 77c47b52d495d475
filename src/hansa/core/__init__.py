"""The pure rules core: board topology, options, moves, game state, scoring.  No I/O beyond package data."""
