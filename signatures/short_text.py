"""Length-capped strings for list outputs.

A cap inside the item type reaches the JSON schema that llama.cpp compiles to a grammar
(`maxLength`), so a small model cannot ramble inside one list item until the token cap cuts
the JSON short and it fails to parse. (A cap on the field itself does not reach the schema:
DSPy builds that from the annotation alone.)
"""

from typing import Annotated

from pydantic import StringConstraints

Query = Annotated[str, StringConstraints(max_length=100)]
Term = Annotated[str, StringConstraints(max_length=50)]
Fact = Annotated[str, StringConstraints(max_length=160)]
ShortAnswer = Annotated[str, StringConstraints(max_length=80)]
