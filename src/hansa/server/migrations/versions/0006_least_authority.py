"""Hardening, second round: who created a game (a hash of the client's address, for the per-client cap on running
games), when a game last moved (moves and undos only: votes and settings no longer keep an idle game from being
marked abandoned), which token made each move (``moves.actor``), and every undo with the token that asked for it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("creator_client", sa.String(64), nullable=True))
        batch.add_column(sa.Column("active_at", sa.DateTime, nullable=True))
    games = sa.table("games", sa.column("active_at", sa.DateTime), sa.column("updated_at", sa.DateTime))
    op.execute(games.update().values(active_at=games.c.updated_at))
    op.create_index("ix_games_status_creator", "games", ["status", "creator_client"])
    op.create_index("ix_games_status_active", "games", ["status", "active_at"])
    with op.batch_alter_table("moves") as batch:
        batch.add_column(sa.Column("actor", sa.String(16), nullable=True))
    op.create_table(
        "undos",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(16), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("actor", sa.String(16), nullable=False),
        sa.Column("move", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("undos")
    with op.batch_alter_table("moves") as batch:
        batch.drop_column("actor")
    op.drop_index("ix_games_status_active", "games")
    op.drop_index("ix_games_status_creator", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("active_at")
        batch.drop_column("creator_client")
