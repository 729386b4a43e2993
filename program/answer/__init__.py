"""Checks of an answer: acceptance criteria and their score, factuality against the cited passages,
citations, code blocks that parse, the short answer, and the confidence's calibrator."""
