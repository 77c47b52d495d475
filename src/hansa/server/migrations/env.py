"""Alembic environment: runs on the connection handed over by hansa.server.db.migrate (or a URL)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from hansa.server.db import Base

config = context.config
target_metadata = Base.metadata

connection = config.attributes.get("connection")
if connection is not None:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:  # pragma: no cover - command-line use
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.connect() as conn:
        context.configure(connection=conn, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
