"""The deterministic "model" behind the fake OpenAI server (tests/fake_openai_server.py).

Tokens are single characters; an image is one token ``<image:HASH>`` (hash of its data URL).
``render`` turns a chat conversation into prompt tokens as the server does, ``token_logprobs``
gives each token's log-probability given everything before it, ``reply_for`` the scripted or
default reply, ``png`` the deterministic images. Tests import these to compute expected values.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from typing import Any


def digest(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(parts).encode()).digest()[:8], "big")


def _image_token(url: str) -> str:
    data = url.split(",", 1)[1] if url.startswith("data:") else url
    return f"<image:{hashlib.sha256(data.encode()).hexdigest()[:12]}>"


def content_tokens(content: Any) -> list[str]:
    if isinstance(content, str):
        return list(content)
    tokens: list[str] = []
    for part in content or []:
        if part.get("type") == "text":
            tokens += list(part.get("text", ""))
        elif part.get("type") == "image_url":
            tokens.append(_image_token(part["image_url"]["url"]))
    return tokens


def render(messages: list[dict[str, Any]], add_generation_prompt: bool = True,
           continue_final_message: bool = False) -> list[str]:
    """The prompt tokens of a conversation: ``<role>`` content ``</role>`` per message, then
    ``<assistant>`` for the generation prompt; with ``continue_final_message`` the last message
    is left open (no closing tag), as vLLM does."""
    tokens: list[str] = []
    for k, message in enumerate(messages):
        role = str(message.get("role", "user"))
        tokens.append(f"<{role}>")
        tokens += content_tokens(message.get("content"))
        if not (continue_final_message and k == len(messages) - 1):
            tokens.append(f"</{role}>")
    if add_generation_prompt and not continue_final_message:
        tokens.append("<assistant>")
    return tokens


def token_logprobs(tokens: list[str]) -> list[float | None]:
    """Log-probability of each token given all before it (``None`` for the first)."""
    out: list[float | None] = [None]
    state = hashlib.sha256(tokens[0].encode()).hexdigest() if tokens else ""
    for token in tokens[1:]:
        value = digest(state, token)
        out.append(-0.05 - (value % 4000) / 500.0)
        state = hashlib.sha256(f"{state}\x1f{token}".encode()).hexdigest()
    return out


def token_id(token: str) -> int:
    """A stable id for a token."""
    return digest("id", token) % 100_000


def reply_for(text: str, rules: list[dict[str, Any]], whole: str) -> str:
    """The scripted reply for ``text`` (the last user message), else the default answer."""
    for rule in rules:
        if "contains" in rule and rule["contains"] in text:
            return str(rule["reply"])
        if "regex" in rule and re.search(rule["regex"], text):
            return str(rule["reply"])
    return f"The answer is ({'ABCD'[digest('reply', whole) % 4]})."


def png(prompt: str, size: tuple[int, int]) -> bytes:
    """A deterministic RGB PNG: stripes coloured from a hash of the prompt."""
    width, height = size
    seed = hashlib.sha256(prompt.encode()).digest()
    rows = []
    for y in range(height):
        c = seed[(y * 3) % 30: (y * 3) % 30 + 3]
        rows.append(b"\x00" + bytes(c) * width)
    raw = zlib.compress(b"".join(rows), 6)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + b"\x08\x02\x00\x00\x00"
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")
