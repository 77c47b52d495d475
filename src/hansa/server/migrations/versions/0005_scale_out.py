"""Scale-out: a revision counter on every game (the optimistic check of every write, and what the change
notifications carry), whether a human plays (bot turns waiting for a human come first), and the bot-turn lease
(which bot worker holds the turn, until when).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("revision", sa.BigInteger, nullable=False, server_default="0"))
        batch.add_column(sa.Column("has_human", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("bot_lease_until", sa.DateTime, nullable=True))
        batch.add_column(sa.Column("bot_lease_owner", sa.String(64), nullable=True))
    games = sa.table("games", sa.column("players", sa.JSON), sa.column("has_human", sa.Boolean))
    op.execute(games.update().values(has_human=sa.cast(games.c.players, sa.Text).like('%"human"%')))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("bot_lease_owner")
        batch.drop_column("bot_lease_until")
        batch.drop_column("has_human")
        batch.drop_column("revision")
