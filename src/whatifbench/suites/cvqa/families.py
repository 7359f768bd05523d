"""C-VQA's release requests per model family, as data: prompt, template, decoding.

Each family is what one of the release's evaluation scripts (Letian2003/C-VQA ``scripts/``)
sends: its prompt text, how the image and text reach the model (a conversation template the
script writes itself, see ``templates``), and its generation call. Original and counterfactual
questions are asked one at a time, each with the image.

============  =====================  ==============================  =========================
family        script                 request                         generation (``release``)
============  =====================  ==============================  =========================
llava         run_eval_llava.py      LLaVA ``conv_templates[conv]``  sample, temperature 0.2,
                                     (``llava_v1`` for LLaVA-1.5),   512 new tokens, stop at
                                     ``<image>\\n`` + prompt           the separator; decoded
                                                                     with special tokens, stop
                                                                     kept, stripped
qwen          run_eval_qwen.py       Qwen-VL-Chat ``model.chat``:    sample, top-p 0.3, top-k
                                     ChatML, ``Picture 1: <img>…``   off, 512 new tokens (its
                                     ``</img>\\n`` + prompt            generation_config.json);
                                                                     cut before ``<|im_end|>``,
                                                                     special tokens kept,
                                                                     stripped
blip2,        run_eval_lavis.py      the prompt alone (LAVIS puts    5 beams, 250 new tokens,
instructblip                         the image's query tokens        min length 1, length and
                                     first)                          repetition penalty 1;
                                                                     special tokens skipped
cogvlm,       run_eval_cogvlm.py,    their own chat code (not        not reproduced (greedy)
minigpt       run_eval_minigpt4.py   reproduced): the prompt in the
                                     checkpoint's chat template
============  =====================  ==============================  =========================
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from whatifbench.core.decoding import Decoding
from whatifbench.suites.cvqa.templates import IMAGE, Template

SHORT = "{q} Answer the question using a single word or phrase."
"""``make_prompt`` of the LLaVA, Qwen and CogVLM scripts."""


@dataclass(frozen=True)
class Family:
    """What one release script sends for a question."""

    name: str
    """The name after ``--prompt paper:``."""
    script: str
    """The release's script (Letian2003/C-VQA ``scripts/``)."""
    prompt: str
    """The script's ``make_prompt``, ``{q}`` standing for the question."""
    image_line: str = ""
    """How the image leads the user message (``IMAGE`` marks the image)."""
    template: str | None = None
    """The conversation template the script writes (``None``: the model's own chat code);
    LLaVA's depends on the checkpoint (``templates.llava_conv``)."""
    decoding: Decoding | None = None
    """The script's generation call (``None``: not reproduced)."""
    max_new_tokens: int | None = None
    """The script's budget of new tokens (``None``: ours)."""

    def message(self, text: str) -> str:
        """The user message for a prompt ``text``: the image, then the text."""
        return f"{self.image_line or IMAGE}{text}"

    def release_decoding(self, template: Template | None) -> Decoding | None:
        """The script's decoding, stopping at ``template``'s stop strings (LLaVA's depend on the
        conversation template; without one, the request goes through a chat API or template,
        which ends the reply itself)."""
        if self.decoding is None:
            return None
        return replace(self.decoding, stop=template.stop if template is not None else ())


LLAVA_DECODING = Decoding(do_sample=True, temperature=0.2, stop_in_reply=True,
                          eos_in_reply=True, skip_special_tokens=False, strip=True)
"""``run_eval_llava.py``: ``do_sample=True`` (temperature 0.2 > 0), ``KeywordsStoppingCriteria``
on the separator (which stays in the output), ``tokenizer.decode(...).strip()`` (special tokens
kept, so a finished reply ends in ``</s>``); top-k and top-p are left to the checkpoint."""
QWEN_DECODING = Decoding(do_sample=True, temperature=1.0, top_p=0.3, top_k=0, eos_in_reply=True,
                         skip_special_tokens=False, strip=True)
"""Qwen-VL-Chat's ``generation_config.json`` (``do_sample``, ``top_p`` 0.3, ``top_k`` 0) and
``decode_tokens``: the text up to ``<|im_end|>``/``<|im_start|>``, special tokens kept, stripped."""
LAVIS_DECODING = Decoding(num_beams=5, min_length=1, length_penalty=1.0, repetition_penalty=1.0,
                          strip=True)
"""``run_eval_lavis.py``: beam search (``use_nucleus_sampling=False``, so its ``top_p`` 0.9 is
unused), ``batch_decode(..., skip_special_tokens=True)``, stripped."""

FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("llava", "run_eval_llava.py", SHORT, f"{IMAGE}\n", "llava", LLAVA_DECODING, 512),
    Family("qwen", "run_eval_qwen.py", SHORT, f"Picture 1: {IMAGE}\n", "qwen", QWEN_DECODING,
           512),
    Family("cogvlm", "run_eval_cogvlm.py", SHORT),
    Family("blip2", "run_eval_lavis.py", "Question: {q} Short answer:", IMAGE, "plain",
           LAVIS_DECODING, 250),
    Family("instructblip", "run_eval_lavis.py", "Question: {q} Short answer:", IMAGE, "plain",
           LAVIS_DECODING, 250),
    Family("minigpt", "run_eval_minigpt4.py",
           "Based on the image, respond to this question with a single word or phrase: {q}"),
)}
"""Every family, by name."""
DEFAULT_FAMILY = "llava"
MODEL_TYPES = {"llava": "llava", "llava_next": "llava", "blip-2": "blip2",
               "instructblip": "instructblip", "qwen2_vl": "qwen", "qwen2_5_vl": "qwen"}
"""``hf:`` model types whose family the release evaluates (Qwen2-VL and Qwen2.5-VL stand for
Qwen-VL, which transformers cannot load)."""
