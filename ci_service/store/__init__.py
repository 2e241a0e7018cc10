"""Persistence: peewee models on one SQLite file (see db.py for the connection rules)."""
