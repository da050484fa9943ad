"""Create the first operator login when there is none, and say how to sign in."""

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the first operator (a superuser) if none exists and print how to sign in."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--username", default="admin")
        parser.add_argument("--url", default="http://127.0.0.1:8000/dashboard/")

    def handle(self, *args: Any, username: str, url: str, **options: Any) -> None:
        users = get_user_model()
        existing = users.objects.filter(is_superuser=True, is_active=True).first()
        if existing is not None:
            self.stdout.write(
                f"Operator login: {existing.get_username()} (password set earlier; "
                f"change it with: .venv/bin/python manage.py changepassword "
                f"{existing.get_username()})"
            )
            return
        password = secrets.token_urlsafe(12)
        users.objects.create_superuser(username=username, email="", password=password)
        self.stdout.write(self.style.SUCCESS("Created the first operator login."))
        self.stdout.write(f"  Sign in at {url}")
        self.stdout.write(f"  username: {username}")
        self.stdout.write(f"  password: {password}")
        self.stdout.write("  This password is shown once; change it after signing in.")
