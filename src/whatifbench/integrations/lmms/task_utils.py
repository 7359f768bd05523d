"""lmms-eval task code for a whatifbench suite, written by ``whatif export --format lmms-eval``.

Plain Python that imports nothing from whatifbench: copy this folder into any lmms-eval
checkout (or pass it with ``--include_path``). It poses every item as whatifbench does (the
dataset's ``prompt`` column after the item's images, each image after its label where the suite
labels them), reads the answer with whatifbench's default parsers (reproduced below), and
aggregates the paired metrics, for which the pair (an original or basic question and its
counterfactual about the same image) is the unit:

- ``original_accuracy`` / ``counterfactual_accuracy``: accuracy (%) on each role of the pairs;
- ``drop``: original − counterfactual accuracy (positive: accuracy fell under the premise);
- ``pair_accuracy``: share (%) of complete pairs whose two questions are both right;
- ``accuracy`` and ``unparsed``: over all scored items; plus the accuracy of each group
  the suite reports apart (MuCR: ``c2e``, ``e2c``, ``cue``), defined at the end of the file.

Free-text answers (MuCR's explanations) are logged but not scored here: import the samples
with ``whatif import-results lmms-eval SAMPLES.jsonl --dataset DATASET --out RUN`` to grade them
and to get whatifbench's full results (intervals, tables, figures, explorer).

The dataset's identity and the metrics to report are read from ``whatifbench_dataset.json``
beside this file.
"""

import json
import re
from pathlib import Path

DATASET = json.loads(Path(__file__).with_name("whatifbench_dataset.json").read_text("utf-8"))
"""name, suite, items_sha256 (identifies the dataset), roles (the two roles of a pair, or
null), metrics (reported names), option_words (groups whose options are named in words)."""
LETTERS = "ABCDEFGHIJ"


# -- what the model sees -----------------------------------------------------------------------
def _images(doc):
    images = doc["images"] if "images" in doc else [doc["image"]]
    return [image.convert("RGB") for image in images]


def _labels(doc):
    """The label shown before each image (MuCR's ``Cause``, ``A`` ...), or None."""
    labels = json.loads(doc["meta"]).get("image_labels")
    fits = isinstance(labels, list) and len(labels) == len(doc["image_paths"])
    return [str(label) for label in labels] if fits else None


def doc_to_visual(doc):
    """The item's images, in the order they are shown."""
    return _images(doc)


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    """The prompt; labelled images are placed in it as ``<label>:<image>`` lines."""
    labels = _labels(doc)
    if labels:
        return "".join(f"{label}:<image>\n" for label in labels) + doc["prompt"]
    return doc["prompt"]


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    """Chat models: one user turn with each image (after its label) and then the prompt."""
    content = []
    images = _images(doc)
    for label, image in zip(_labels(doc) or [None] * len(images), images, strict=True):
        if label is not None:
            content.append({"type": "text", "text": f"{label}:"})
        content.append({"type": "image", "url": image})
    content.append({"type": "text", "text": doc["prompt"]})
    return [{"role": "user", "content": content}]


# -- answer extraction: whatifbench's default parsers --------------------------------------------
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)


def strip_think(text):
    """(reply without <think> blocks, whether a block was left open: then there is no answer)."""
    without = _THINK.sub(" ", text)
    match = _THINK_OPEN.search(without)
    if match:
        return without[: match.start()].strip(), True
    return without.strip(), False


def extract_choice(reply, choices):
    """(the chosen option or None, flag): a letter (``B``, ``(B)``, ``Answer: B`` ...), else the
    one option whose value occurs in the reply."""
    text, cut = strip_think(reply)
    if cut:
        return None, "truncated-think"
    if not text:
        return None, "empty"
    letters = LETTERS[: len(choices)]
    index, flag = _find_letter(text, letters)
    if index is not None:
        return choices[index], None
    if flag:
        return None, flag
    lowered = text.lower()
    hits = [i for i, choice in enumerate(choices) if choice and re.search(
        rf"(?<![\w.]){re.escape(choice.lower())}(?![\w]|\.\d)", lowered)]
    if len(hits) == 1:
        return choices[hits[0]], None
    return None, "ambiguous" if hits else "no-answer"


def _find_letter(text, letters):
    cls = f"[{letters}]"
    whole = re.fullmatch(rf"\(?({cls})\)?[.:)]?", text, flags=re.IGNORECASE)
    if whole:
        return letters.index(whole.group(1).upper()), None
    marked = {a or b for a, b in re.findall(rf"\(({cls})\)|\b({cls})[:)]", text)}
    keyed = set(re.findall(
        rf"\b(?i:answer|option|choice|choose|select|pick)\w*\s*(?i:is|would be|:)?\s*:?\s*"
        rf"(?i:option\s+)?\(?({cls})\b(?!')", text))
    if len(keyed) == 1:
        letter = keyed.pop()
        return (None, "ambiguous") if marked - {letter} else (letters.index(letter), None)
    if len(keyed) > 1:
        return None, "ambiguous"
    lead = re.match(rf"\(?({cls})(?:\)|[.:])(?:\s|$)", text)
    if lead:
        return letters.index(lead.group(1)), None
    if len(marked) == 1:
        return letters.index(marked.pop()), None
    return (None, "ambiguous") if marked else (None, None)


UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen", "twenty"]
TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
        "ninety": 90}
WORD_VALUES = {w: i for i, w in enumerate(UNITS)} | TENS
_TENS_ALT = "|".join(["twenty", *TENS])
_WORD = (rf"(?:\b(?:{_TENS_ALT})[- ](?:one|two|three|four|five|six|seven|eight|nine)\b"
         rf"|\b(?:{'|'.join(sorted(WORD_VALUES, key=len, reverse=True))})\b)")
_DIGITS = r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?![\w]|\.\d)"
_NONE = re.compile(r"\bnone\b|\bno\b(?!\s+(?:more|fewer|less|longer)\s+than\b)")
_NUM_KEYED = re.compile(rf"\b(?:final answer|answer)\s*(?:is|would be|will be|:|=)?\s*[:=]?\s*"
                        rf"[\"'(*]*\s*({_DIGITS}|{_WORD})(?!\s*[-+*/×÷]\s*\d)")
_EQUATION = re.compile(rf"=\s*({_DIGITS}|{_WORD})")
_IF_CLAUSE = re.compile(
    r"\bif\s+\S+[^,;:.!?\n]*?(?:[,;:]|\bthen\b|(?=[.!?\n]|$|\b(?:there|it|they|he|she|we|you|i|"
    r"the answer)\s+(?:would|will|could|might|should|is|are|be)\b))")
_NOT_A_COUNT = re.compile(r"\s+(?:(?:more|fewer|less)\s+than|of)\b")
_NOBODY = re.compile(r"\bno[- ]one\b|\bnobody\b|\bnothing\b")
_MARKUP = re.compile(r"[*_`#]+")
_NUM_ABSTAIN = re.compile(r"\b(?:cannot|can't|can not|unable to|impossible to) (?:tell|determine|"
                          r"say|know|count|see)\b|\b(?:i don't know|unclear|not sure|unknown)\b")


def number_value(token):
    """The integer a digit string or number word stands for (None if neither)."""
    token = token.strip().lower()
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d+", token):
        return int(token.replace(",", ""))
    if token in WORD_VALUES:
        return WORD_VALUES[token]
    parts = re.split(r"[- ]", token)
    if len(parts) == 2 and parts[0] in ("twenty", *TENS) and parts[1] in UNITS[1:10]:
        return WORD_VALUES[parts[0]] + WORD_VALUES[parts[1]]
    return None


def _candidates(pattern, text):
    """Counts in ``text`` except comparisons (``one more than``) and partitives (``one of``)."""
    return [m.group(0) for m in re.finditer(pattern, text)
            if not _NOT_A_COUNT.match(text, m.end())]


def _count(token, flag=None):
    value = number_value(token)
    return (None, "no-answer") if value is None else (str(value), flag)


def extract_number(reply):
    """(the count as a digit string or None, flag); premises (``if ... ,``) are skipped."""
    text, cut = strip_think(reply)
    if cut:
        return None, "truncated-think"
    text = _NOBODY.sub("none", _MARKUP.sub(" ", text).lower()).strip()
    if not text:
        return None, "empty"
    whole = re.fullmatch(rf"\W*({_DIGITS}|{_WORD})\W*", text)
    if whole:
        return _count(whole.group(1))
    keyed = _NUM_KEYED.findall(text)
    if keyed:
        return _count(keyed[-1])
    rest = _IF_CLAUSE.sub(" ", text)
    equation = _EQUATION.findall(rest)
    if equation:
        return _count(equation[-1])
    lead = re.match(rf"\W*({_DIGITS}|{_WORD})(?!\s*[-+*/×÷]\s*\d)(?!\s+(?:of|more|fewer|less)\b)",
                    rest)
    if lead:
        return _count(lead.group(1))
    found = _candidates(_DIGITS, rest) or _candidates(_WORD, rest)
    if found:
        return _count(found[-1], None if len({number_value(f) for f in found}) == 1
                      else "last-of-several")
    if _NUM_ABSTAIN.search(text):
        return None, "no-answer"
    if _NONE.search(rest):
        return "0", None
    return None, "no-answer"


_YES_NO = {"yes": "yes", "true": "yes", "no": "no", "false": "no"}
_YN_LEAD = re.compile(r"\W*(yes|no|true|false)\b")
_YN_KEYED = re.compile(r"\banswer\s*(?:is|would be|will be|:)?\s*:?\s*[\"'(]*\s*"
                       r"(yes|no|true|false)\b")
_YN_ABSTAIN = re.compile(r"\b(?:cannot|can't|can not|unable to|impossible to) (?:tell|determine|"
                         r"say|know|see)\b|\b(?:i don't know|unclear|not sure|unknown|uncertain)\b")
_NEGATION = re.compile(r"\b(?:not|no|never|none|nothing|nobody|neither|nor|cannot|false)\b|n't\b")
_AFFIRM = re.compile(r"\b(?:would|will|is|are|was|were|be|does|do|did|can|could|has|have|had|"
                     r"there|true|yes|definitely|certainly)\b")


def extract_yes_no(reply):
    """(``yes``/``no`` or None, flag): a leading or keyed yes/no, else the first sentence read
    as a statement (a negation is no, an affirmative verb yes)."""
    text, cut = strip_think(reply)
    if cut:
        return None, "truncated-think"
    text = _MARKUP.sub(" ", text).lower().replace("’", "'").strip()
    if not text:
        return None, "empty"
    lead = _YN_LEAD.match(text)
    if lead:
        return _YES_NO[lead.group(1)], None
    keyed = _YN_KEYED.findall(text)
    if keyed:
        return _YES_NO[keyed[-1]], None
    if _YN_ABSTAIN.search(text):
        return None, "no-answer"
    statement = _IF_CLAUSE.sub(" ", re.split(r"[.!?\n]", text, maxsplit=1)[0])
    if _NEGATION.search(statement):
        return "no", None
    if _AFFIRM.search(statement):
        return "yes", None
    return None, "no-answer"


def extract(doc, reply):
    """(value, flag) of a reply to this item, by the item's answer kind."""
    kind = doc["kind"]
    if kind == "choice":
        word = DATASET["option_words"].get(doc["group"] or "")
        if word is None:
            return extract_choice(reply, list(doc["choices"]))
        names = [word.format(choice) for choice in doc["choices"]]
        value, flag = extract_choice(reply, names)
        return (None if value is None else doc["choices"][names.index(value)]), flag
    if kind == "number":
        return extract_number(reply)
    if kind == "yes-no":
        return extract_yes_no(reply)
    text, cut = strip_think(reply)
    return (None, "truncated-think") if cut else ((text, None) if text else (None, "empty"))


# -- scoring -------------------------------------------------------------------------------------
def process_results(doc, results):
    """One record per item (the same record under every reported metric)."""
    reply = results[0] if results else ""
    reply = reply if isinstance(reply, str) else str(reply)
    value, flag = extract(doc, reply)
    scored = doc["kind"] != "text"
    record = {
        "whatifbench_dataset": DATASET["name"], "items_sha256": DATASET["items_sha256"],
        "id": doc["id"], "pair_id": doc["pair_id"], "role": doc["role"], "group": doc["group"],
        "prediction": value, "flag": flag, "scored": scored,
        "correct": bool(scored and value is not None and value == doc["target"]),
        "unparsed": bool(scored and value is None),
    }
    return {name: record for name in DATASET["metrics"]}


def _percent(hits, total):
    return round(100.0 * hits / total, 2) if total else None


def accuracy(records):
    """Accuracy (%) over every scored item."""
    scored = [r for r in records if r["scored"]]
    return _percent(sum(r["correct"] for r in scored), len(scored))


def unparsed(records):
    """Share (%) of scored items whose reply held no answer."""
    scored = [r for r in records if r["scored"]]
    return _percent(sum(r["unparsed"] for r in scored), len(scored))


def _role_accuracy(records, role):
    chosen = [r for r in records if r["role"] == role and r["pair_id"] is not None]
    return _percent(sum(r["correct"] for r in chosen), len(chosen))


def original_accuracy(records):
    """Accuracy (%) on the pairs' original (or basic) questions."""
    return _role_accuracy(records, DATASET["roles"][0])


def counterfactual_accuracy(records):
    """Accuracy (%) on the pairs' counterfactual questions."""
    return _role_accuracy(records, DATASET["roles"][1])


def drop(records):
    """Original minus counterfactual accuracy (positive: accuracy fell)."""
    first, second = original_accuracy(records), counterfactual_accuracy(records)
    return None if first is None or second is None else round(first - second, 2)


def pair_accuracy(records):
    """Share (%) of complete pairs with both questions right."""
    pairs = {}
    for r in records:
        if r["pair_id"] is not None and r["role"] in DATASET["roles"]:
            pairs.setdefault(r["pair_id"], {})[r["role"]] = r["correct"]
    complete = [p for p in pairs.values() if len(p) == 2]
    return _percent(sum(all(p.values()) for p in complete), len(complete))


def _group_accuracy(records, group):
    chosen = [r for r in records if r["group"] == group and r["scored"]]
    return _percent(sum(r["correct"] for r in chosen), len(chosen))


def group_metric(group):
    """An aggregation: accuracy (%) over the scored items of ``group`` (the metrics the suite
    reports per group, e.g. MuCR's ``c2e``, ``e2c``, ``cue``, are made from it at the end of this
    file, by the exporter)."""
    def aggregate(records):
        return _group_accuracy(records, group)
    aggregate.__name__ = aggregate.__qualname__ = str(group)
    aggregate.__doc__ = f"Accuracy (%) over the scored items of the group {group!r}."
    return aggregate


# -- the suite's groups reported apart (written by whatif export) -------------------------------
