"""SynthesizeAnswer: a cited answer from numbered evidence."""

import dspy


class SynthesizeAnswer(dspy.Signature):
    """Answer the question using only the numbered evidence. Start with the short answer itself
    (a name, date, number, yes or no), then at most two sentences of support. End every
    factual sentence with the [n] of the passages it rests on. If the evidence does not
    contain the answer, say what is missing instead of guessing."""

    question: str = dspy.InputField()
    evidence: str = dspy.InputField(desc="numbered passages [n], best first")
    answer: str = dspy.OutputField(desc="short answer first, every sentence cited like [1] or [2][3]")
