# ruff: noqa: E501  (the prompts are verbatim; their long lines are the paper's)
"""The chain-of-thought prompts C-VQA used to have ChatGPT write counterfactual questions.

Verbatim from C-VQA Appendix B (B.1 numerical direct group, B.2 boolean group, typos such as
"FLip" and the wrong example answer "2-1+2=3" / "New answer:1" included). One question is
appended per request (``question_prompt``); the paper batched several.
"""

from __future__ import annotations

NUMERICAL_DIRECT = """You will change some numerical questions.
Your task is to perform the following actions:
1 - Read the original numerical question and answer
2 - Increase or decrease the number of items directly.
3 - Work out how this would change the answer to the question.
4 - Write a new question that asks how many items would there be if the number of items was increased or decreased according to the step 2.
 Change the original questions to new questions of unreal conditions with counterfactual presuppositions, using if clauses. Do not change the meaning of questions in new questions.
5 - Write the new answer to the new question.

Answer each initial question with the following format:
Original question:<original question>
Original answer:<original answer>
Step1:Add or remove <number> <item> to the original question.
Step2:<how the answer would change>
New question:<new question>
New answer:<new answer with a single number>

Here are some examples:
-----
Original question:How many birds are there?
Original answer:3
Step1:Add 3 birds
Step2:The answer would be 3+3=6
New question:How many birds would there be if 3 birds came?
New answer:6
-----
Original question:How many people in the picture?
Original answer:2
Step1:add 2 women
Step2:The answer would be 2+2=4
New question:How many people would be in the picture if there were 2 more women?
New answer:4
-----
Original question:How many zebras are here?
Original answer:2
Step1:1 zebra left and 2 zebras came
Step2:The answer would be 2-1+2=3
New question:How many zebras would there be if 1 zebra left and 2 zebras came?
New answer:1
-----
Original question:How many bikes are outside?
Original answer:2
Step1:double the bikes
Step2:The answer would be 2*2=4
New question:How many bikes would there be if the number of bikes doubled?
New answer:4
-----
Original question:How many sinks?
Original answer:2
Step1:add 2 sinks
Step2:The answer would be 2+2=4
New question:How many sinks if two more sinks were added?
New answer:4
-----
Original question:How many oranges are there?
Original answer:2
Step1:eat all oranges
Step2:The answer would be 2-2=0
New question:How many oranges would there be if all oranges were eaten?
New answer:0
-----
Original question:How many animals are here?
Original answer:2
Step1:another zebra comes
Step2:The answer would be 2+1=3
New question:How many animals would there be if another zebra came?
New answer:3
-----
Original question:How many birds are there?
Original answer:3
Step1:2 birds fly away
Step2:The answer would be 3-2=1
New question:How many birds would there be if 2 birds flew away?
New answer:1
-----

Now change the following questions step by step:"""
"""Appendix B.1: increase or decrease the number of items, then compute the new answer."""

BOOLEAN = """You will change some questions.
Your task is to perform the following actions:
1 - Read the original yes/no question and answer
2 - FLip the original Answer
3 - Work out how to make the answer true.
4 - Write a new question that asks if the answer would be true if the action you worked out in step 3 was performed.
 Change the original questions to new questions of unreal conditions with counterfactual presuppositions, using if clauses. Do not change the meaning of questions in new questions.
5 - Write the new answer to the new question.

Answer each initial question with the following format:
Original question:<original question>
Original answer:<original answer>
Step1:The new answer should be <yes/no>, so ...
Step2:How to make ...:...
New question:<new question>
New answer:<new answer>

Here are some examples:
-----
Original question:Are the goggles covering her eyes?
Original answer:yes
Step1:The new answer should be no, so the goggles are not covering her eyes.
Step2:How to make the goggles not cover her eyes: take off the glasses.
New question:Would the goggles be covering her eyes if she took off the glasses?
New answer:no
-----
Original question:Is there a hotdog on this car?
Original answer:yes
Step1:The new answer should be no, so there is no hotdog on this car.
Step2:How to make there be no hotdog on this car: remove all food.
New question:Would there be a hotdog on this car if all food was removed?
New answer:no
-----
Original question:Are these vegetables cooked?
Original answer:yes
Step1:The new answer should be no, so these vegetables are not cooked.
Step2:How to make these vegetables not be cooked: make them raw.
New question:Would these vegetables be cooked if they were raw?
New answer:no
-----
Original question:Is he happy?
Original answer:no
Step1:The new answer should be yes, so he is happy.
Step2:How to make him happy: make him laugh.
New question:Would he be happy if he was laughing?
New answer:yes
-----
Original question:Is this woman doing something active?
Original answer:no
Step1:The new answer should be yes, so she is doing something active.
Step2:How to make her do something active: make her dance.
New question:Would this woman be doing something active if she was dancing?
New answer:yes
-----
Original question:Is the ground wet?
Original answer:no
Step1:The new answer should be yes, so the ground is wet.
Step2:How to make the ground wet: make it rain.
New question:Would the ground be wet if it was raining?
New answer:yes
-----
Original question:Is the sky clear?
Original answer:yes
Step1:The new answer should be no, so the sky is not clear.
Step2:How to make the sky not clear: make it cloudy.
New question:Would the sky be clear if it was cloudy?
New answer:no
-----
Original question:Is the plane flying?
Original answer:no
Step1:The new answer should be yes, so the plane is flying.
Step2:How to make the plane fly: make it take off.
New question:Would the plane be flying if it took off?
New answer:yes
-----

Now change the following questions step by step:"""
"""Appendix B.2: flip the answer first, then design a presupposition that makes it true."""

PROMPTS = {"direct": NUMERICAL_DIRECT, "boolean": BOOLEAN}
"""The prompt for each group the pipeline generates (the indirect group is written by hand)."""


def question_prompt(group: str, question: str, answer: str) -> str:
    """The full prompt for one original question and its answer."""
    return f"{PROMPTS[group]}\nOriginal question:{question}\nOriginal answer:{answer}\n"
