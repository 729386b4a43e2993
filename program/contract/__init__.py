"""The answer contract: the loop's result, the response every surface returns (and its JSON
Schema), the agent metadata beside the answer, and the readable rendering."""
