"""The parts of :class:`hansa.server.games.GameService`, one module per concern (listed in ``games.py``)."""
