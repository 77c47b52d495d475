"""Table talk: chat messages, their reports, the moderation log, and an account's chat mute.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("chat_muted", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(16), sa.ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True),
        sa.Column("author", sa.String(80), nullable=False),
        sa.Column("preset", sa.String(32), nullable=True),
        sa.Column("text", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("client", sa.String(64), nullable=True),
        sa.Column("hidden", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("hidden_by", sa.String(80), nullable=True),
        sa.Column("hidden_at", sa.DateTime, nullable=True),
    )
    op.create_index("ux_chat_messages_game_n", "chat_messages", ["game_id", "n"], unique=True)
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("message_id", sa.Integer, nullable=False, index=True),
        sa.Column("game_id", sa.String(16), nullable=False),
        sa.Column("author", sa.String(80), nullable=False),
        sa.Column("author_account", sa.Integer, nullable=True),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("reporter", sa.String(80), nullable=False),
        sa.Column("reason", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False, index=True),
        sa.Column("resolved_at", sa.DateTime, nullable=True),
        sa.Column("resolved_by", sa.String(80), nullable=True),
    )
    op.create_index("ux_chat_reports_message_reporter", "chat_reports", ["message_id", "reporter"], unique=True)
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime, nullable=False, index=True),
        sa.Column("actor", sa.String(80), nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.String(200), nullable=False),
        sa.Column("note", sa.Text, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("moderation_log")
    op.drop_table("chat_reports")
    op.drop_table("chat_messages")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("chat_muted")
