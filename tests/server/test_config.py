"""The server's settings: defaults, environment variables, flags, and docs/api.md listing every one of them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from server_support import HANSA

from hansa.server.config import ServerConfig, settings_table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_docs_list_every_setting_with_its_default() -> None:
    text = DOCS.read_text()
    table = text.split("<!-- settings-table -->")[1].split("<!-- /settings-table -->")[0]
    rows = [line for line in table.strip().splitlines()[2:]]
    expected = [f"| `{flag}` | `{env}` | {default} | {meaning} |" for flag, env, default, meaning in settings_table()]
    assert rows == expected


def test_environment_then_overrides() -> None:
    env = {"HANSA_MAX_BODY": "1000", "HANSA_BOT_DELAY": "0.5", "HANSA_WS_PER_GAME": "7"}
    config = ServerConfig.from_env({"max_body": 2048, "ws_per_client": None}, environ=env)
    assert config.max_body == 2048  # the flag wins
    assert config.bot_delay == 0.5 and config.ws_per_game == 7
    assert config.ws_per_client == ServerConfig().ws_per_client  # None: not given
    with pytest.raises(ValueError, match="HANSA_MAX_BODY"):
        ServerConfig.from_env(environ={"HANSA_MAX_BODY": "lots"})
    with pytest.raises(ValueError, match="negative"):
        ServerConfig.from_env({"ws_send_timeout": -1.0}, environ={})
    with pytest.raises(ValueError, match="max_header"):
        ServerConfig.from_env({"max_header": 100}, environ={})


def test_every_setting_is_a_serve_flag() -> None:
    out = subprocess.run([HANSA, "serve", "--help"], capture_output=True, text=True, env={"COLUMNS": "200", "PATH": ""},
                         timeout=60)
    assert out.returncode == 0, out.stderr
    for flag, env, _default, _meaning in settings_table():
        assert flag in out.stdout and env in out.stdout, flag
    bad = subprocess.run([HANSA, "serve", "--max-body", "-5"], capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "negative" in bad.stderr
