"""Language models: the profiles (local llama.cpp or OpenAI), the embedded server, the default LM of a served model."""
