"""Game records: a JSON document (format version, options, seed, players, moves) that replays exactly."""

from .record import FORMAT, VERSION, game_from_record, game_to_record, load_record, replay_record, save_record

__all__ = ["FORMAT", "VERSION", "game_from_record", "game_to_record", "load_record", "replay_record", "save_record"]
