"""What the code LLM reads: our API descriptions, our in-context examples, the item's question.

The texts are ours (ViperGPT's design of an ``ImagePatch`` API and VisProg's step language are
followed as facts, their prompts are not copied). They are fixed per ``*_PROMPT_VERSION``: the
tools, prompts and questions stay the same when only the code LLM changes (the C-VQA Table 6
protocol), and the version is part of the backend's identity, so a changed prompt never reuses
cached programs.
"""

from __future__ import annotations

import json

from whatifbench.core.item import Item
from whatifbench.core.requests import Part, Request, Turn

VIPER_PROMPT_VERSION = "viper-1"
VISPROG_PROMPT_VERSION = "visprog-1"

VIPER_API = '''You answer questions about images by writing a Python function over this API.

class ImagePatch:
    """A rectangular region of the image. The whole image is the first argument of
    execute_command. Coordinates are pixels with (0, 0) at the bottom-left corner of the image.
    Attributes: left, lower, right, upper, width, height, horizontal_center, vertical_center
    (a larger vertical_center is higher up in the image)."""

    def find(self, object_name: str) -> list["ImagePatch"]:
        """Every object called object_name in this patch, e.g. "dog" or "red car"."""

    def exists(self, object_name: str) -> bool:
        """True if there is an object_name in this patch."""

    def verify_property(self, object_name: str, attribute: str) -> bool:
        """True if the object_name in this patch has the attribute (a colour, material ...)."""

    def best_text_match(self, option_list: list[str]) -> str:
        """The option that best describes this patch."""

    def simple_query(self, question: str) -> str:
        """A short answer to a simple question about this patch, such as "What colour is the
        car?". Do not ask it questions that need reasoning."""

    def compute_depth(self) -> float:
        """The median depth of this patch, as a depth model estimates it."""

    def crop(self, left: float, lower: float, right: float, upper: float) -> "ImagePatch":
        """The part of the image inside the box."""

    def overlaps_with(self, left: float, lower: float, right: float, upper: float) -> bool:
        """True if this patch overlaps the box."""

    def contains(self, patch: "ImagePatch") -> bool:
        """True if patch lies inside the object of this patch, e.g. a flower inside a polygon
        or a dot inside a circle."""


def llm_query(question: str, long_answer: bool = False) -> str:
    """A language model's answer to a question that needs knowledge, not the image."""

def distance(patch_a: ImagePatch, patch_b: ImagePatch) -> float:
    """The distance between two patches (0 when they overlap)."""

def bool_to_yesno(value: bool) -> str:
    """"yes" or "no"."""

def coerce_to_numeric(text: str) -> float | None:
    """The first number in the text."""

Write a function execute_command(image, options) that returns the answer: a number for "how
many" questions, "yes" or "no" for yes/no questions, and one of the options when options are
given. If the question states a hypothetical premise ("if ... were removed", "if there were no
..."), return the answer that would hold if the premise were true, not what the image shows.
Only the math module may be imported; the function cannot read or write files. Reply with the
code only, in one ```python block.'''

CHOICE_EXAMPLE = ("Question: How many squares would be inside the blue circles if one square "
                  "inside them were removed? Select the correct answer:A:2  B:3  C:4  D:5\n"
                  'Options: ["2", "3", "4", "5"]')
"""The multiple-choice example question (both backends)."""

VIPER_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("Question: How many cups are on the table?", '''def execute_command(image, options):
    tables = image.find("table")
    cups = image.find("cup")
    if not tables:
        return len(cups)
    table = tables[0]
    on_table = [c for c in cups
                if c.overlaps_with(table.left, table.lower, table.right, table.upper)]
    return len(on_table)'''),
    ("Question: How many dogs would be in the park if two more dogs joined them?",
     '''def execute_command(image, options):
    dogs = image.find("dog")
    return len(dogs) + 2'''),
    ("Question: If the girl dropped the red balloon, would she still be holding a balloon?",
     '''def execute_command(image, options):
    girls = image.find("girl")
    if not girls:
        return "no"
    balloons = girls[0].find("balloon")
    kept = [b for b in balloons if not b.verify_property("balloon", "red")]
    return bool_to_yesno(len(kept) > 0)'''),
    ("Question: Is the lamp on the left of the sofa?", '''def execute_command(image, options):
    lamps = image.find("lamp")
    sofas = image.find("sofa")
    if not lamps or not sofas:
        return "no"
    return bool_to_yesno(lamps[0].horizontal_center < sofas[0].horizontal_center)'''),
    (CHOICE_EXAMPLE, '''def execute_command(image, options):
    circles = [c for c in image.find("circle") if c.verify_property("circle", "blue")]
    squares = image.find("square")
    inside = [s for s in squares if any(c.contains(s) for c in circles)]
    return str(len(inside) - 1)'''),
)

VISPROG_API = '''You answer questions about images by writing a visual program: one step per
line, each of the form NAME=STEP(argument=value, ...). Values are numbers, quoted strings, or
the names of earlier results; IMAGE is the input image (IMAGE0, IMAGE1 ... when there are
several). The steps are:

BOX=LOC(image=IMAGE, object='dog')          the boxes of every dog in the image
N=COUNT(box=BOX)                            how many boxes
IMG=CROP(image=IMAGE, box=BOX)              the image inside the first box
IMG=CROP_LEFTOF(image=IMAGE, box=BOX)       the part left of the first box (also
                                            CROP_RIGHTOF, CROP_ABOVE, CROP_BELOW)
BOX=FILTER(box=BOX, object='polygon', property='red')
                                            the boxes whose object has the property
BOX=INSIDE(box=BOX, region=BOX2)            the boxes lying inside one of the region's objects
BOX=OUTSIDE(box=BOX, region=BOX2)           the boxes lying inside none of them
TEXT=VQA(image=IMAGE, question='What colour is the car?')
                                            a short answer to a simple question
VALUE=EVAL(expr="{N} - 2")                  arithmetic and comparisons on earlier results,
                                            written in braces; "'yes' if {N} > 0 else 'no'"
FINAL=RESULT(var=VALUE)                     the answer

The answer is a number for "how many" questions, yes or no for yes/no questions, and one of
the options when options are given. If the question states a hypothetical premise ("if ...
were removed"), answer what would hold if the premise were true, not what the image shows.
Reply with the program only, in one ``` block.'''

VISPROG_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("Question: How many cups are there?", '''BOX0=LOC(image=IMAGE,object='cup')
ANSWER0=COUNT(box=BOX0)
FINAL=RESULT(var=ANSWER0)'''),
    ("Question: How many dogs would be in the park if two more dogs joined them?",
     '''BOX0=LOC(image=IMAGE,object='dog')
ANSWER0=COUNT(box=BOX0)
ANSWER1=EVAL(expr="{ANSWER0} + 2")
FINAL=RESULT(var=ANSWER1)'''),
    ("Question: Would there be any cars on the street if the red car drove away?",
     '''BOX0=LOC(image=IMAGE,object='car')
ANSWER0=COUNT(box=BOX0)
BOX1=FILTER(box=BOX0,object='car',property='red')
ANSWER1=COUNT(box=BOX1)
ANSWER2=EVAL(expr="'yes' if {ANSWER0} - {ANSWER1} > 0 else 'no'")
FINAL=RESULT(var=ANSWER2)'''),
    ("Question: What is the man left of the tree holding?", '''BOX0=LOC(image=IMAGE,object='tree')
IMAGE0=CROP_LEFTOF(image=IMAGE,box=BOX0)
ANSWER0=VQA(image=IMAGE0,question='What is the man holding?')
FINAL=RESULT(var=ANSWER0)'''),
    (CHOICE_EXAMPLE, '''BOX0=LOC(image=IMAGE,object='circle')
BOX1=FILTER(box=BOX0,object='circle',property='blue')
BOX2=LOC(image=IMAGE,object='square')
BOX3=INSIDE(box=BOX2,region=BOX1)
ANSWER0=COUNT(box=BOX3)
ANSWER1=EVAL(expr="{ANSWER0} - 1")
FINAL=RESULT(var=ANSWER1)'''),
)


def question_text(item: Item) -> str:
    """The item's question as the code LLM reads it (with the option values of choice items)."""
    text = f"Question: {item.question}"
    if item.kind == "choice":
        text += f"\nOptions: {json.dumps(list(item.choices), ensure_ascii=False)}"
    if len(item.images) > 1:
        text += f"\n(The item has {len(item.images)} images.)"
    return text


def code_request(item: Item, api: str, examples: tuple[tuple[str, str], ...], fence: str,
                 max_new_tokens: int) -> Request:
    """The conversation asking for one item's program: the API with the first example, the
    examples as user/assistant turns, then the item's question."""
    turns: list[Turn] = []
    for k, (question, program) in enumerate(examples):
        text = f"{api}\n\n{question}" if k == 0 else question
        turns += [Turn("user", (Part(text=text),)),
                  Turn("assistant", (Part(text=f"```{fence}\n{program}\n```"),))]
    turns.append(Turn("user", (Part(text=question_text(item)),)))
    return Request(item_id=f"{item.id}#program", turns=tuple(turns),
                   max_new_tokens=max_new_tokens, item=item)
