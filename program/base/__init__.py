"""What every layer stands on: the settings, the errors a user can act on, JSON files read
safely, secret redaction, and what both command lines share."""
