"""Game lifecycle: creator token, public seeds, status notes, the bot-turn flag; lobby index.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("creator_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("seed_public", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("status_note", sa.Text, nullable=True))
        batch.add_column(sa.Column("bot_turn", sa.Boolean, nullable=False, server_default=sa.false()))
    # Games stored before this revision do not say who must decide: restore every running one at the next start
    # (its first move sets the flag right).
    op.execute(sa.text("UPDATE games SET bot_turn = :yes WHERE status = 'running'").bindparams(yes=True))
    op.create_index("ix_games_created_at", "games", ["created_at"])
    op.create_index("ix_games_status_bot_turn", "games", ["status", "bot_turn"])


def downgrade() -> None:
    op.drop_index("ix_games_status_bot_turn", "games")
    op.drop_index("ix_games_created_at", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("bot_turn")
        batch.drop_column("status_note")
        batch.drop_column("seed_public")
        batch.drop_column("creator_hash")
