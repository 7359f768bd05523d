"""Optional LLM rewriting of template questions, with the paper's three inputs and a check.

The prompt gives (1) the relevant descriptions (the scene graph's relationships among the
question's objects), (2) the causal graph as text edges (``beach supports horse``) and (3) the
constraints: keep the template's meaning, name the required entities, do not name the
forbidden ones (they would leak the answer), write one question. A reply is accepted only when
``leakage.question_problems`` finds nothing; otherwise the template question stays. Both the
exchange and the verdict go into the question's provenance. Calls go through the run store, so
a rerun costs no model calls; if any call fails, nothing is built and the rerun retries it.

The members of a contrast set (``shortcut-free``) must keep one text: the set is rewritten once,
from the template and the constraints alone (the descriptions and the graph belong to one image
and could slip its answer into the wording), must not name any member's forbidden objects, and
the accepted rewrite replaces every member's question.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace

from whatifbench.core.requests import Part, Request, Response, Turn
from whatifbench.errors import WhatifError
from whatifbench.models.base import Backend
from whatifbench.runner.cached import generate_cached
from whatifbench.runner.store import RunStore
from whatifbench.suites.cello.causal.assemble import Question
from whatifbench.suites.cello.causal.leakage import question_problems

MAX_NEW_TOKENS = 96


def rewrite_prompt(question: Question, scene: bool = True) -> str:
    """The instruction for one question (``scene``: with its image's descriptions and causal
    graph)."""
    lines = [("Rewrite the question below about an image so that it reads naturally, as a "
              "person looking at the image would ask it."), ""]
    if scene:
        lines += ["Relevant descriptions:"]
        lines += [f"- {d}" for d in question.descriptions] or ["- (none)"]
        lines += ["", "Causal graph (each edge: the first object supports the second):"]
        lines += [f"- {e}" for e in question.edges_text]
        lines += [""]
    lines += ["Constraints:",
              f'- Keep exactly the meaning of: "{question.template_text}"',
              "- Mention " + ", ".join(f'"{e.name}"' for e in question.required) + "."]
    if question.forbidden:
        lines.append("- Do not include " + ", ".join(f'"{e.name}"' for e in question.forbidden)
                     + " in your question.")
    lines += ["- Write a single question ending with a question mark, and nothing else.", "",
              "Question:"]
    return "\n".join(lines)


def clean_reply(text: str) -> str:
    """The first non-empty line of a reply, without a ``Question:`` label or quotes."""
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.lower().startswith("question:"):
            line = line[len("question:"):].strip()
        return line.strip("\"'“” ").strip()
    return ""


def check_rewrite(question: Question, response: Response) -> tuple[str, list[str]]:
    """The cleaned reply and every reason to reject it (empty when accepted)."""
    if response.error is not None:
        return "", [f"the model call failed ({response.error})"]
    reply = clean_reply(response.text or "")
    if not reply:
        return "", ["the reply is empty"]
    return reply, question_problems(reply, question.required, question.forbidden)


def _set_heads(questions: Sequence[Question]) -> tuple[list[Question], list[int]]:
    """One question to rewrite per contrast set (forbidding every member's forbidden objects)
    or per lone question, and the index of each question's head."""
    heads: list[Question] = []
    index: dict[str, int] = {}
    of: list[int] = []
    for q in questions:  # a near set's members differ in one object: each rewritten alone
        key = None if q.contrast is None else f"{q.contrast}\n{q.template_text}"
        if key is None or key not in index:
            if key is not None:
                index[key] = len(heads)
            heads.append(q)
        else:
            head = heads[index[key]]
            extra = tuple(e for e in q.forbidden if e not in head.forbidden)
            heads[index[key]] = replace(head, forbidden=head.forbidden + extra)
        of.append(index[key] if key is not None else len(heads) - 1)
    return heads, of


def rewrite_questions(questions: Sequence[Question], backend: Backend,
                      store: RunStore) -> list[Question]:
    """Ask ``backend`` to rewrite every question (every contrast set once); keep each rewrite
    that passes the checks."""
    heads, of = _set_heads(questions)
    prompts = [rewrite_prompt(q, scene=q.contrast is None) for q in heads]
    requests = [Request(item_id="cello-rewrite-" + hashlib.sha256(p.encode()).hexdigest()[:16],
                        turns=(Turn("user", (Part(text=p),)),), max_new_tokens=MAX_NEW_TOKENS)
                for p in prompts]
    got = generate_cached(backend, requests, store, label="rewrite")
    if got.errors:
        first = next(r.error for r in got.responses if r.error is not None)
        answered = len(requests) - got.errors
        raise WhatifError(
            f"{got.errors} of {len(requests)} rewrite calls to {backend.spec} failed (first: "
            f"{first}); nothing was written. Run the same command again: the {answered} "
            "answered calls are stored and only the failed ones are retried."
        )
    checked = [check_rewrite(head, got.responses[i]) for i, head in enumerate(heads)]
    out: list[Question] = []
    for question, i in zip(questions, of, strict=True):
        reply, problems = checked[i]
        accepted = not problems
        record = {"model": backend.describe(), "prompt": prompts[i],
                  "reply": got.responses[i].text, "accepted": accepted, "problems": problems}
        out.append(replace(question, text=reply if accepted else question.text,
                           provenance={**question.provenance, "rewrite": record}))
    return out
