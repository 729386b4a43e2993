"""Length-capped strings for outputs, with short type names.

A cap inside the item type reaches the JSON schema that llama.cpp compiles to a grammar
(`maxLength`), so a small model cannot ramble inside one list item until the token cap cuts
the JSON short and it fails to parse. (A cap on the field itself does not reach the schema:
DSPy builds that from the annotation alone.)

subtle: a list item type is a `str` subclass, not `Annotated[str, StringConstraints(...)]`: the
adapter prints a list field's type into the prompt twice, and the Annotated form spelled out
every constraint, about 120 prompt tokens a judge call for nothing the LM could use.
"""

from typing import Annotated

from pydantic import GetCoreSchemaHandler, StringConstraints
from pydantic_core import core_schema

# a scalar output: the adapter prints an Annotated scalar's type as plain `str`
ShortAnswer = Annotated[str, StringConstraints(max_length=80)]
Question = Annotated[str, StringConstraints(max_length=300)]


class _Capped(str):
    max_length = 0

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.str_schema(max_length=cls.max_length)


class Query(_Capped):
    max_length = 100


class Term(_Capped):
    max_length = 50
