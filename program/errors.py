"""Errors a user can act on, shared by the modules that raise them."""


class ModelNotInstalledError(RuntimeError):
    """A package that ships model weights (or runs them) is not installed; the message names the pip command."""


class IngestError(ValueError):
    """A source cannot be ingested; the message says which and why."""
