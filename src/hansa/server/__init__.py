"""The web app: FastAPI server, persistence (SQLAlchemy, SQLite or PostgreSQL) and the static browser client."""
