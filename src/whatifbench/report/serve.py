"""``whatif view``: the explorer page served on 127.0.0.1, with every image at full size read
from the dataset folders (only the images the runs' items name, and only inside their folder).
Hostile or broken clients cost little (``report.bounded_server``)."""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

from whatifbench.core.readfile import read_bytes
from whatifbench.report.bounded_server import (
    DEFAULT_LIMITS,
    LOOPBACK,
    BoundedServer,
    Limits,
    QuietHandler,
)
from whatifbench.report.bounded_server import start as start
from whatifbench.report.page import page_html
from whatifbench.report.payload import Options, Source
from whatifbench.report.render import explorer_payload
from whatifbench.secrets import redact

HOST = LOOPBACK


class ExplorerServer(BoundedServer):
    """An HTTP server for one page and the images of its datasets, with bounded connections."""

    def __init__(self, page: bytes, images: list[tuple[Path | None, set[str]]],
                 port: int, limits: Limits = DEFAULT_LIMITS) -> None:
        self.page = page
        self.images = images
        super().__init__((HOST, port), _Handler, limits)

    @property
    def url(self) -> str:
        """The page's address."""
        return f"http://{HOST}:{self.server_address[1]}/"

    def image(self, path: str) -> Path | None:
        """The file for ``/image/<dataset>/<relative path>``, if it is one of that dataset's
        images and lies inside its folder."""
        head, _, rel = path.removeprefix("/image/").partition("/")
        # ASCII digits only, few of them: "²" is a digit to str.isdigit but not to int(), and
        # int() of 5,000 digits raises
        if not (head.isascii() and head.isdecimal() and len(head) < 10) \
                or int(head) >= len(self.images):
            return None
        root, listed = self.images[int(head)]
        rel = unquote(rel)
        if root is None or rel not in listed:
            return None
        target = (root / rel).resolve()
        return target if target.is_relative_to(root.resolve()) and target.is_file() else None


class _Handler(QuietHandler):
    server: ExplorerServer

    def do_HEAD(self) -> None:
        self.do_GET(body=False)

    def do_GET(self, body: bool = True) -> None:
        path = urlsplit(self.path).path
        if not self._host_ok():
            return self._send(403, b"Forbidden host.\n", "text/plain", body=body)
        if path in ("/", "/index.html"):
            return self._send(200, self.server.page, "text/html; charset=utf-8", body=body)
        if path.startswith("/image/"):
            target = self.server.image(path)
            if target is not None:
                kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
                try:
                    return self._send(200, read_bytes(target), kind, body=body)
                except OSError:  # gone, or no longer a regular file
                    pass
        self._send(404, b"Not found.\n", "text/plain", body=body)


def make_server(sources: Sequence[Source], options: Options | None = None, port: int = 0
                ) -> ExplorerServer:
    """A server for the runs (not yet serving: call ``serve_forever`` or ``start``)."""
    payload = explorer_payload(sources, replace(options or Options(), images="serve",
                                                clip=None))
    images = [(Path(d["found"]) if d["found"] else None, set(d["images"]))
              for d in payload["datasets"]]
    return ExplorerServer(redact(page_html(payload)).encode("utf-8"), images, port)

