"""Sessions: the recent turns of a conversation, so a follow-up ("What about its pricing?") can be
rewritten with what the conversation is about. A turn record, the rules every store keeps (turns per
session, idle expiry), an in-memory store (per process) and a file store (shared by processes)."""
