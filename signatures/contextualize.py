"""Contextualize: rewrite a follow-up question in a session so it stands alone.

Called only for a question `program.follow_up` reads as a follow-up ("What about its pricing?"
after "What is S3 Glacier?"), before planning, so every later step reads the standalone question."""

import dspy

from signatures.short_text import Question


class Contextualize(dspy.Signature):
    """Rewrite the follow-up question so it stands alone: replace each pronoun and each omitted
    subject with the name it refers to in the conversation. Keep its meaning; do not answer it."""

    conversation: str = dspy.InputField(desc="earlier questions and answers, latest last")
    topics: list[str] = dspy.InputField(desc="names the conversation is about, latest first")
    question: str = dspy.InputField(desc="the follow-up")
    standalone_question: Question = dspy.OutputField(desc="the follow-up with each reference replaced by its name")
