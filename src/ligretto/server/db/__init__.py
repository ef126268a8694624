"""The database under the store: its connection (SQLite or PostgreSQL), the schema's migrations,
the writer that commits."""
