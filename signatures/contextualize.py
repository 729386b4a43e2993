"""Contextualize: rewrite a follow-up question in a session so it stands alone.

Called only for a question `program.sessions.follow_up` reads as a follow-up ("What about its pricing?"
after "What is S3 Glacier?"), before planning, so every later step reads the standalone question.
subtle: the worked example in the instruction is what made the 0.5B rewrite rather than copy or
answer: 6 of 10 follow-ups usable with it, 3 of 10 without (the program's fallback takes the rest).
"""

import dspy

from signatures.short_text import Question


class Contextualize(dspy.Signature):
    """Rewrite the follow-up as one question that stands alone, putting the name it refers to in
    place of each pronoun. Write a question, never its answer. Example: after "What is S3 Glacier?",
    "What about its pricing?" becomes "What is the pricing of S3 Glacier?"."""

    conversation: str = dspy.InputField(desc="earlier questions and answers, latest last")
    topics: list[str] = dspy.InputField(desc="names the conversation is about, latest first")
    question: str = dspy.InputField(desc="the follow-up")
    standalone_question: Question = dspy.OutputField(desc="the follow-up question, with names in place of pronouns")
