"""Runnable examples of Dewee from an agent (README "Use Dewee from an agent")."""
