"""Django's PostgreSQL backend, with what Dewee's keys need of it (base.py)."""
