"""``whatif import-results`` and credentials in the logged ``model_args`` (issue 32, item 10): the
forms the earlier rounds missed (a scheme-less ``user:password@host``, a ``#token=`` fragment,
a token as an argument value, an Authorization header) never reach a file or the terminal, and
dict-form ``model_args`` are kept as a dict, not garbled into a string key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from interop_util import kind_datasets  # noqa: F401  (session fixture)
from test_integrations_lmms import import_with_model_args as _import

from whatifbench import secrets

SECRETS = ("hunter2pass", "tok-0123456789", "hf_AbCdEfGhIjKlMnOpQrStUv", "sk-live-0123456789abcdef",
           "s3cr3t-header-value", "alice:")


def test_more_url_forms_and_header_values_are_never_recorded(
        kind_datasets: Any, tmp_path: Path, whatif_home: Path,  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    model_args = ("pretrained=/m/tiny,base_url=alice:hunter2pass@models.lan:8000/v1,"
                  "callback=https://h.lan/v1#token=tok-0123456789,"
                  "revision=hf_AbCdEfGhIjKlMnOpQrStUv,"
                  "headers=Authorization: Bearer sk-live-0123456789abcdef,"
                  "extra=X-Api-Key: s3cr3t-header-value")
    run, written = _import(kind_datasets, tmp_path, whatif_home, capsys, model_args)
    for secret in SECRETS:
        assert secret not in written, secret
    args = run["spec"]["backend"]["args"]["model_args"]
    assert args["base_url"] == "***@models.lan:8000/v1"
    assert args["callback"] == "https://h.lan/v1#token=***"
    assert args["revision"] == "***" and args["headers"] == "Authorization: ***"
    assert args["pretrained"] == "/m/tiny"


def test_dict_model_args_stay_a_dict(kind_datasets: Any, tmp_path: Path,  # noqa: F811
                                     whatif_home: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    model_args = {"pretrained": "/m/tiny", "max_pixels": 1024,
                  "api_key": "sk-live-0123456789abcdef",
                  "base_url": "http://alice:hunter2pass@h.lan:8000/v1?token=tok-0123456789",
                  "headers": {"Authorization": "Bearer s3cr3t-header-value", "X-Trace": "on"}}
    run, written = _import(kind_datasets, tmp_path, whatif_home, capsys, model_args)
    for secret in SECRETS:
        assert secret not in written, secret
    assert run["model"] == "lmms-eval:openai_compatible:/m/tiny"
    assert run["spec"]["backend"]["args"]["model_args"] == {
        "pretrained": "/m/tiny", "max_pixels": 1024,
        "base_url": "http://***@h.lan:8000/v1?token=***", "headers": {"X-Trace": "on"}}


@pytest.mark.parametrize(("value", "shown"), [
    ("bob:s3cretpw@10.0.0.2:8000/v1", "***@10.0.0.2:8000/v1"),
    ("https://h/cb#access_token=abc123&state=1", "https://h/cb#access_token=***&state=1"),
    ("main", "main"), ("a@b.c", "a@b.c"), ("/models/llava-1.5", "/models/llava-1.5"),
    ("Bearer-less token=abcdef12", "Bearer-less token=***"),
])
def test_public_value(value: str, shown: str) -> None:
    assert secrets.public_value(value) == shown
