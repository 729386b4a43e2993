"""RepairCode: fix the syntax error of one code block of an answer, given the parser's message.

Called only for a block that failed to parse (program/answer/code_check.py), once per block."""

import dspy


class RepairCode(dspy.Signature):
    """Fix the syntax error in this code block so that it parses. Change as little as possible
    and keep what the code does. Return only the code, without ``` fences or explanation."""

    language: str = dspy.InputField()
    code: str = dspy.InputField(desc="the block as written")
    error: str = dspy.InputField(desc="the parser's first error: its line and message")
    fixed_code: str = dspy.OutputField(desc="the whole corrected block")
