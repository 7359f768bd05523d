"""English descriptions of side-view worlds and their consequences: object phrases (cue
phrases), and the three explanations of a cause/effect pair (cause image, effect image, causal
link), all computed from the world and the events of ``mechanics.consequence``.

The generator writes its reference explanations with these functions; a pixel reader that
perceived the same world and ran the same consequence writes the same sentences.
"""

from __future__ import annotations

from collections.abc import Sequence

from whatifbench.scenes.bodies import Body, World
from whatifbench.scenes.mechanics import Event, stack_above

NOUNS = {"block": "block", "ice": "ice block", "ball": "ball", "flame": "flame",
         "scissors": "scissors", "beam": "beam", "puddle": "puddle", "rope": "rope"}
"""How each kind is named."""
NUMBERS = ("no", "one", "two", "three", "four", "five", "six")


def phrase(body: Body) -> str:
    """``the red ball``: how a cue phrase names a body."""
    return f"the {body.color} {NOUNS[body.kind]}"


def _article(body: Body) -> str:
    word = f"{body.color} {NOUNS[body.kind]}"
    if body.kind == "scissors":
        return f"a pair of {word}"
    return f"{'an' if word[0] in 'aeiou' else 'a'} {word}"


def _list(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def _blocks(bodies: Sequence[Body]) -> str:
    """``the red and blue blocks`` / ``the red block``."""
    names = [b.color for b in bodies]
    if len(bodies) == 1:
        return phrase(bodies[0])
    nouns = {NOUNS[b.kind] for b in bodies}
    noun = f"{nouns.pop()}s" if len(nouns) == 1 else "blocks"
    return f"the {_list(names)} {noun}"


def _side(direction: int) -> str:
    return "right" if direction > 0 else "left"


def _landing(world: World, onto: str | None) -> str:
    if onto is None or onto == "ground" or world.get(onto).kind == "ground":
        return "the ground"
    return phrase(world.get(onto))


def explain(cause: World, agent_id: str, effect: World,
            events: Sequence[Event]) -> tuple[str, str, str]:
    """Descriptions of the cause image and of the effect image, and the causal link."""
    agent = cause.get(agent_id)
    toppled = [cause.get(e.body) for e in events if e.what == "toppled"]
    fell = [e for e in events if e.what == "fell"]
    fallen = [cause.get(e.body) for e in fell]
    if agent.kind == "ball" and toppled:
        colors = _list([b.color for b in toppled])
        stack = (f"a stack of {NUMBERS[len(toppled)]} blocks ({colors} from the bottom up)"
                 if len(toppled) > 1 else phrase(toppled[0]))
        side = _side(agent.facing)
        cause_text = f"{_article(agent).capitalize()} rolls to the {side} towards {stack}."
        effect_text = (f"{_blocks(toppled).capitalize()} lie on the ground to the {side} and "
                       f"the {agent.color} ball has stopped where the stack stood.")
        link = (f"The rolling {agent.color} ball hits the stack, which loses its footing and "
                f"topples to the {side}, so its blocks fall to the ground.")
        return cause_text, effect_text, link
    melted = [cause.get(e.body) for e in events if e.what == "melted"]
    if agent.kind == "flame" and melted:
        held = [b for m in melted for b in stack_above(cause, m)[1:]]
        what = _blocks(held) if held else "nothing"
        landing = _landing(effect, fell[0].onto) if fell else "the ground"
        many = len(held) > 1
        cause_text = (f"{_article(agent).capitalize()} burns beside {_blocks(melted)}, which "
                      f"holds up {what}.")
        effect_text = (f"The ice has melted into a puddle and {what} "
                       f"{'have' if many else 'has'} dropped onto {landing}."
                       + (" The flame has burnt out." if _spent(events) else ""))
        link = (f"The heat of the {agent.color} flame melts the ice, so {what} "
                + ("lose their support and fall." if many else "loses its support and falls."))
        return cause_text, effect_text, link
    cut_ropes = [e for e in events if e.what == "cut"]
    if agent.kind == "scissors" and cut_ropes:
        name = phrase(fallen[0]) if fallen else "a block"
        below = _landing(effect, fell[0].onto) if fell else "the ground"
        cause_text = (f"{_article(agent).capitalize()} is about to cut the rope that holds "
                      f"{name} above {below}.")
        effect_text = (f"The rope has been cut and {name} has fallen onto {below}."
                       + (" The scissors are gone." if _spent(events) else ""))
        link = (f"The {agent.color} scissors cut the rope, so {name} loses its support and "
                f"falls until it lands on {below}.")
        return cause_text, effect_text, link
    return (f"{_article(agent).capitalize()} is in the scene.", "Nothing has changed.",
            f"{phrase(agent).capitalize()} does not change anything.")


def _spent(events: Sequence[Event]) -> bool:
    return any(e.what == "spent" for e in events)


def captions(cause: World, agent_id: str, events: Sequence[Event]) -> tuple[str, str]:
    """Short captions of the cause and the effect image."""
    agent = cause.get(agent_id)
    if agent.kind == "ball":
        return (f"{_article(agent).capitalize()} rolls towards a stack of blocks.",
                "The stack of blocks has toppled over.")
    if agent.kind == "flame":
        return (f"{_article(agent).capitalize()} burns next to an ice block.",
                "The ice block has melted and the blocks above it have dropped.")
    return (f"{_article(agent).capitalize()} is about to cut a rope holding a block.",
            "The rope is cut and the block has fallen.")
