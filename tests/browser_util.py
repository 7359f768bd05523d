"""A real browser for tests: Debian's Chromium driven by Playwright, one per test module.

Playwright's sync API keeps an asyncio loop running on the main thread while it is started,
which breaks later tests that run their own loop (the OpenAI client); so the browser lives for
one module of browser tests and is closed before the next module runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update"]
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Chromium is not installed at /usr/bin/chromium (apt-get install -y chromium); the "
           "browser tests need it (CI installs it in .ci/run)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the browser tests of a module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (own storage) that records console errors, page errors and dialogs in
    ``page.problems``."""
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    context.set_default_timeout(10_000)
    tab = context.new_page()
    tab.problems = []
    tab.on("console", lambda m: tab.problems.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: tab.problems.append(str(e)))

    def dialog(d: Any) -> None:
        tab.problems.append(f"dialog: {d.message}")
        d.dismiss()

    tab.on("dialog", dialog)
    yield tab
    context.close()


def open_page(page: Any, url: str, fragment: str = "") -> None:
    """Go to ``url#fragment`` and wait until the page's script has run."""
    page.goto(url + (f"#{fragment}" if fragment else ""))
    page.wait_for_selector("body[data-ready]", state="attached")
