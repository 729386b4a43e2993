"""JudgeSupport: does a passage support a claim? The citation-faithfulness judge of the metrics."""

import dspy


class JudgeSupport(dspy.Signature):
    """Decide whether the passages, taken together, support the claim. Supported means every
    fact the claim states is said or directly implied by the passages; a claim that adds a
    fact the passages do not state, or contradicts them, is not supported."""

    claim: str = dspy.InputField()
    passages: list[str] = dspy.InputField(desc="the passages the claim cites")
    supported: bool = dspy.OutputField(desc="true only if the passages support every fact in the claim")
