"""Clocks: each game's clock (settings, time left per seat, the running period, away seats, takeover votes,
webhooks) and the deadline of its running period, indexed so that the timer finds the next one.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("clock", sa.JSON, nullable=True))
        batch.add_column(sa.Column("deadline", sa.DateTime, nullable=True))
    op.create_index("ix_games_status_deadline", "games", ["status", "deadline"])


def downgrade() -> None:
    op.drop_index("ix_games_status_deadline", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("deadline")
        batch.drop_column("clock")
