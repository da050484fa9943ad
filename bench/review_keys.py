"""Settling disputes as an operator does, in a real browser against the real server:
100 disputes one by one by keyboard (j to the next, r to reject), then 1,000 disputes at once
by "Reject all matching…", its confirmation, and Undo.

    .venv/bin/python bench/review_keys.py                     # SQLite, in a temporary var/
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/review_keys.py

Seeds through the facts service (each dispute a second value of its own slot, so that every
one may be settled alone; the 1,000 after the keyboard part, whose steps wait on the nav's
count), starts `manage.py serve` (gunicorn, no worker) on it, and drives Chromium with
Playwright: each keyboard step waits for the nav's count to drop, so a step is
timed until its answer is on the screen (and a reload when the page's 50 are settled).
Targets (issue 28): 100 by keyboard <= 8 s; 1,000 by one bulk action with undo <= 10 s.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-review-keys-")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from facts.services import Claim, SourceInput, assert_fact  # noqa: E402
from tenancy.services import create_agent, default_workspace  # noqa: E402
from tests.servers import Server, free_port, stop_server, wait_until_serving  # noqa: E402

PASSWORD = "bench passphrase 42"


def seed(prefix: str, count: int) -> None:
    """``count`` slots, each with a current value and a weaker one disputing it."""
    agent = create_agent(workspace=default_workspace(), agent_id=f"{prefix}-bot")
    source = SourceInput(kind="conversation_summary", reference="bench", excerpt="said so")
    for n in range(count):
        for value, verification in ((f"Acme {n}", "stated"), (f"Globex {n}", "inferred")):
            claim = Claim(
                user=f"u{n}",
                subject="user",
                predicate=f"{prefix}_{n}",
                value=value,
                verification=verification,
            )
            assert_fact(agent=agent, claim=claim, source=source, actor="bench")


def serve() -> Server:
    port = free_port()
    log = Path(tempfile.mkstemp(prefix="dewee-review-keys-", suffix=".log")[1])
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", f"127.0.0.1:{port}", "--no-worker"],
        cwd=ROOT,
        env={**os.environ, "DEWEE_WORKERS": "2"},
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )
    return Server(f"http://127.0.0.1:{port}", process, "", log)


SETTLED = """n => document.querySelector('#review-badge').textContent.trim() === String(n)
  && !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')"""


def by_keyboard(page, url: str, count: int) -> float:
    page.goto(f"{url}/dashboard/review/")  # the bulk agent is seeded later: keys-bot alone
    badge = page.locator("#review-badge")
    waiting = int(badge.inner_text())
    start = time.perf_counter()
    for _ in range(count):
        if not page.locator(".review-item").count():
            # The page holds the oldest 50: past them, the next page is a reload away.
            page.reload()
        page.keyboard.press("j")
        page.keyboard.press("r")
        waiting -= 1
        # Until the answer is on the screen and settled (htmx then moves the focus to what
        # took the group's place, where the next j starts).
        page.wait_for_function(SETTLED, arg=waiting)
    return time.perf_counter() - start


def in_bulk(page, url: str, agent_ref: str, count: int) -> tuple[float, float]:
    page.goto(f"{url}/dashboard/review/?agent={agent_ref}")
    start = time.perf_counter()
    page.get_by_role("button", name="Reject all matching…").click()
    page.get_by_role("button", name=f"Yes, reject {count}").click()
    page.locator("#toast").get_by_text(f"Rejected {count} disputed values.").wait_for()
    settled = time.perf_counter() - start
    page.locator("#toast").get_by_role("button", name="Undo").click()
    page.locator("#toast").get_by_text("back in review").wait_for()
    return settled, time.perf_counter() - start


def signed_in[T](url: str, act: Callable[[Any], T]) -> T:
    """``act`` on a page of Debian's Chromium (launched as the browser tests launch it,
    tests/conftest.py) signed in as the staff operator."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("DEWEE_CHROMIUM", "/usr/bin/chromium"),
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(60_000)
        page.goto(f"{url}/accounts/login/")
        page.get_by_label("Username").fill("ops")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/dashboard/**")
        try:
            return act(page)
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=100, help="Disputes settled by keyboard.")
    parser.add_argument("--bulk", type=int, default=1000, help="Disputes settled at once.")
    args = parser.parse_args()

    call_command("migrate", verbosity=0)
    # The server serves the collected static files, as in production (the keys are a script).
    call_command("collectstatic", interactive=False, verbosity=0)
    started = time.perf_counter()
    seed("keys", args.keys)
    get_user_model().objects.create_user(username="ops", password=PASSWORD, is_staff=True)
    seeded = time.perf_counter() - started
    print(f"seeded in {seeded:.0f} s ({connection.vendor})", file=sys.stderr)
    connection.close()
    server = serve()
    try:
        wait_until_serving(server)
        keyboard = signed_in(server.url, lambda page: by_keyboard(page, server.url, args.keys))
        # Seeded only now, outside the browser's event loop: the nav's count (capped at 1,000)
        # times the keyboard steps.
        seed("bulk", args.bulk)
        # As staff pick an agent (workspace/agent); read here, outside the browser's loop.
        ref = f"{default_workspace().slug}/bulk-bot"
        connection.close()
        settled, with_undo = signed_in(
            server.url, lambda page: in_bulk(page, server.url, ref, args.bulk)
        )
    finally:
        stop_server(server)
    print(f"\n## Settling disputes in a browser ({connection.vendor})\n")
    print("| what | time (s) | target (s) |")
    print("|---|---|---|")
    keys_row = f"| {args.keys} disputes by keyboard (j, r; each until the count drops) "
    print(f"{keys_row}| {keyboard:.1f} | 8 |")
    print(f"| {args.bulk} disputes by Reject all matching + confirmation | {settled:.1f} | |")
    print(f"| the same, then Undo until they are back in review | {with_undo:.1f} | 10 |")


if __name__ == "__main__":
    main()
