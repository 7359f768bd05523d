"""Helpers for the human-baseline tests: run ``whatif human serve`` as a real process, answer
items in the app by keyboard, talk to its HTTP API."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

from util import whatif_env

URL = re.compile(r"^\s+(\S+): (http://\S+)$")


def free_port() -> int:
    """A port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def outside_address() -> str | None:
    """This machine's address on its default route (not loopback), if it has one (no packet
    is sent: a UDP socket only picks the route)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            address = str(s.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") else address


def refused(host: str, port: int) -> bool:
    """Nobody accepts TCP connections on ``host:port``."""
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError:
        return True
    return False


class ServeProcess:
    """``python -m whatifbench human serve ...`` in a subprocess; ``links`` maps each
    annotator named with ``--annotator`` to the link it printed."""

    def __init__(self, args: list[str], home: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "whatifbench", "human", "serve", *args, "--no-browser"],
            env=whatif_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.links: dict[str, str] = {}
        assert self.process.stdout is not None
        for line in self.process.stdout:
            found = URL.match(line)
            if found:
                self.links[found.group(1)] = found.group(2)
            if line.startswith("Ctrl-C"):
                break
        else:
            raise AssertionError(f"the server did not start: {self.process.stderr.read()}")

    def kill(self) -> None:
        """SIGKILL (no clean-up of any kind), then reap."""
        self.process.kill()
        self.process.wait(timeout=10)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def answer_by_keyboard(page: Any, key: str) -> int:
    """Choose ``key`` (a digit or letter) and confirm with Enter; returns the number of answers
    given before (read from the page) once the next item is shown."""
    before = int(page.get_attribute("#progress", "data-answered"))
    page.keyboard.press(key)
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#progress[data-answered='{before + 1}']")
    return before


def api(base: str, token: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """Call the app's API (``base`` without a trailing slash)."""
    headers = {"X-Whatif-Token": token}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base + path, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())
