"""The annotation page: one HTML document with the explorer's escaping, policy and style.

Its settings (the access token, the dataset's name, the annotator) sit in a ``<script
type="application/json">`` block escaped by ``report.page.embed_json``; the app's script is a
package file allowed by its hash in the Content-Security-Policy, which permits no other script
and no network access but to this server; items are rendered with DOM text nodes only.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from whatifbench.report.page import asset, content_security_policy, embed_json


@cache
def app_asset(name: str) -> str:
    """A file of ``human/assets``."""
    return (resources.files("whatifbench.human") / "assets" / name).read_text(encoding="utf-8")


@cache
def app_script() -> str:
    """The app's whole script: the explorer's DOM helper, then the app, in one scope."""
    return ('"use strict";\n(function () {\n' + asset("explorer-0-dom.js")
            + app_asset("human-app.js") + "})();\n")


def app_html(config: dict[str, Any]) -> str:
    """The page for ``config`` (``token``, ``dataset``, ``annotator``)."""
    script = app_script()
    policy = content_security_policy(script, "'self' data:") + "; connect-src 'self'"
    return "".join([
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{policy}\">",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<link rel='icon' href='data:,'>",
        (f"<title>whatifbench: human baseline</title><style>{asset('explorer.css')}"
         f"{app_asset('human.css')}</style></head><body>"),
        "<header><h1>whatifbench · human baseline</h1><div id='who'></div></header>",
        "<main id='app'><noscript>This page needs JavaScript.</noscript></main>",
        f"<script type='application/json' id='whatif-config'>{embed_json(config)}</script>",
        f"<script>{script}</script></body></html>\n",
    ])
