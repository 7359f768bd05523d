"""The explorer page: one self-contained HTML file (no network, works from ``file://``).

The data sits in a ``<script type="application/json">`` block with ``<``, ``>`` and ``&``
escaped, so no text can close it; the page's own script (a package file, allowed by its hash in
the Content-Security-Policy, which also forbids every other script and any network access)
renders it with DOM text nodes only.
"""

from __future__ import annotations

import base64
import hashlib
import json
from functools import cache
from importlib import resources
from typing import Any

ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
           "\u2029": "\\u2029"}


SCRIPTS = ("explorer-0-dom.js", "explorer-1-data.js", "explorer-2-tables.js",
           "explorer-3-items.js", "explorer-4-views.js")
"""The page's script, in parts joined in this order inside one function scope."""


@cache
def asset(name: str) -> str:
    """A file of ``report/assets`` (the page's script parts and style)."""
    return (resources.files("whatifbench.report") / "assets" / name).read_text(encoding="utf-8")


@cache
def page_script() -> str:
    """The page's whole script."""
    return ('"use strict";\n(function () {\n' + "".join(asset(name) for name in SCRIPTS)
            + "})();\n")


def embed_json(payload: Any) -> str:
    """JSON that is safe inside a ``<script>`` element."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, escaped in ESCAPES.items():
        text = text.replace(char, escaped)
    return text


def content_security_policy(script: str, img_src: str) -> str:
    """The policy of our self-contained pages: no network, inline styles, images from
    ``img_src``, and only ``script`` (allowed by its hash) runs."""
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    return (f"default-src 'none'; img-src {img_src}; style-src 'unsafe-inline'; "
            f"script-src 'sha256-{digest}'; base-uri 'none'; form-action 'none'")


def page_html(payload: dict[str, Any]) -> str:
    """The whole page."""
    script = page_script()
    policy = content_security_policy(script, "data: 'self'")
    return "".join([
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{policy}\">",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<link rel='icon' href='data:,'>",
        f"<title>whatifbench report</title><style>{asset('explorer.css')}</style></head><body>",
        "<header><h1>whatifbench report</h1><nav id='tabs'></nav></header>",
        ("<main id='app'><noscript>This page needs JavaScript; report.md beside it holds the "
        "same tables.</noscript></main>"),
        f"<script type='application/json' id='whatif-data'>{embed_json(payload)}</script>",
        f"<script>{script}</script></body></html>\n",
    ])
