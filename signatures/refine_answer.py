"""RefineAnswer: improve a draft with new evidence.

Named RefineAnswer, not Refine, so nobody mistakes it for the built-in `dspy.Refine` module
(which reruns a module until a reward passes)."""

import dspy


class RefineAnswer(dspy.Signature):
    """Improve the draft answer with the evidence. Fix anything the evidence contradicts, fill
    the gaps named in the focus areas, and keep only claims the evidence supports. Start with
    the short answer itself, and end every factual sentence with the [n] of its passages."""

    question: str = dspy.InputField()
    draft: str = dspy.InputField(desc="the previous answer")
    evidence: str = dspy.InputField(desc="numbered passages [n], best first, including the new ones")
    focus: list[str] = dspy.InputField(desc="what to fix or add")
    answer: str = dspy.OutputField(desc="the improved answer, short answer first, every sentence cited like [1]")
