"""The club: accounts, sessions, sign-in throttling, the seats accounts play, open tables and their seats, ratings.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_index("ix_games_rated_status", "games", ["rated", "status"])
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("name_key", sa.String(255), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("email_verified", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("deleted_at", sa.DateTime, nullable=True),
        sa.Column("disabled", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("admin", sa.Boolean, nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False,
                  index=True),
        sa.Column("csrf", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("seen_at", sa.DateTime, nullable=False),
        sa.Column("expires_at", sa.DateTime, nullable=False, index=True),
    )
    op.create_table(
        "sign_in_failures",
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("window_start", sa.DateTime, nullable=False),
        sa.Column("blocked_until", sa.DateTime, nullable=True),
    )
    op.create_table(
        "account_seats",
        sa.Column("game_id", sa.String(16), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False,
                  index=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "tables",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("created_at", sa.DateTime, nullable=False, index=True),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sa.Column("revision", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("status_note", sa.Text, nullable=True),
        sa.Column("private", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("allow_guests", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("clock", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("table_options", sa.JSON, nullable=False),
        sa.Column("creator_account", sa.Integer, sa.ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True),
        sa.Column("creator_hash", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.DateTime, nullable=False, index=True),
        sa.Column("game_id", sa.String(16), nullable=True),
        sa.Column("rematch_of", sa.String(16), nullable=True, unique=True),
    )
    op.create_index("ix_tables_status_private", "tables", ["status", "private"])
    op.create_table(
        "table_seats",
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("bot", sa.String(40), nullable=True),
        sa.Column("colour", sa.String(16), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("accepted", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("joined_at", sa.DateTime, nullable=False),
    )
    op.create_index("ux_table_seats_account", "table_seats", ["table_id", "account_id"], unique=True)
    op.create_table(
        "ratings",
        sa.Column("subject", sa.String(64), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "rated_games",
        sa.Column("game_id", sa.String(16), primary_key=True),
        sa.Column("rated_at", sa.DateTime, nullable=False, index=True),
    )
    op.create_table(
        "rating_events",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(16), nullable=False),
        sa.Column("subject", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
        sa.Column("rated_at", sa.DateTime, nullable=False),
    )
    op.create_index("ux_rating_events_game_subject", "rating_events", ["game_id", "subject"], unique=True)
    op.create_index("ix_rating_events_subject_at", "rating_events", ["subject", "rated_at"])


def downgrade() -> None:
    for table in ("rating_events", "rated_games", "ratings", "table_seats", "tables", "account_seats",
                  "sign_in_failures", "sessions", "accounts"):
        op.drop_table(table)
    op.drop_index("ix_games_rated_status", "games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rated")
