"""E-mail: the outbox of verification mails, turn notices and reminders; opt-outs; the language of an address.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("email_lang", sa.String(8), nullable=True))
    op.create_table(
        "mail_outbox",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("dedupe", sa.String(160), nullable=False, unique=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("game_id", sa.String(16), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("period", sa.BigInteger, nullable=True),
        sa.Column("recipient", sa.String(254), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_try", sa.DateTime, nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claimed_until", sa.DateTime, nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False, index=True),
        sa.Column("sent_at", sa.DateTime, nullable=True),
        sa.Column("last_error", sa.String(300), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True, unique=True),
        sa.Column("token_expires", sa.DateTime, nullable=True),
    )
    op.create_index("ix_mail_outbox_status_next", "mail_outbox", ["status", "next_try"])
    op.create_index("ix_mail_outbox_account_game", "mail_outbox", ["account_id", "game_id", "created_at"])
    op.create_table(
        "mail_optouts",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("game_id", sa.String(16), primary_key=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("mail_optouts")
    op.drop_table("mail_outbox")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("email_lang")
