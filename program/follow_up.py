"""Follow-up questions in a session: whether to rewrite one to stand alone, and the rule-based rewrite
used when the LM's is unusable. Pure functions over the question and the session's recent turns.

A question is a follow-up when the session has a turn and the question opens with an ellipsis
("what about ...", "and the ...?"), uses a pronoun before naming anything ("What is its
capital?"), or is short, names nothing, and comes soon after the last turn. Anything else
stands alone and costs no LM call. The loop (`program.loop`) asks `follow_up` before planning;
`Contextualize` writes the rewrite, `check_rewrite` vets it and `substitute` is the fallback.
No LM, no retrieval, no I/O here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from program.decomposition import named_entities
from program.sessions.conversation import Conversation
from program.thresholds import Thresholds

_ELLIPSIS = re.compile(r"^\W*(?:(?:what|how)\s+(?:about|else)|and|also|or)\b", re.I)
_PRONOUN = re.compile(r"\b(?:(?:this|that|the\s+same)\s+one|it|its|itself|they|them|their|theirs|he|him|his|"
                      r"she|her|hers)\b", re.I)
_OWNER = {"its", "their", "theirs", "his", "hers"}  # read as "<name>'s"
# after "her", a word that makes it an object ("held by her in 1990"), not an owner ("her name")
_NOT_OWNED = set("in on at to for from by with and or as than about after before since until was is".split())


@dataclass(frozen=True)
class FollowUp:
    rewrite: bool
    rule: str
    reason: str


def follow_up(question: str, conversation: Conversation, t: Thresholds) -> FollowUp:
    """Whether the question leans on the session's earlier turns, and the rule that says so."""
    if not conversation.turns:
        return FollowUp(False, "no_session", "no earlier turn in this session")
    if opener := _ELLIPSIS.match(question):
        return FollowUp(True, "ellipsis", f"opens with {opener.group().strip()!r}: continues the last turn")
    names, pronoun = _names(question), _PRONOUN.search(question)
    if pronoun and (not names or pronoun.start() < question.find(names[0])):
        return FollowUp(True, "pronoun", f"{pronoun.group()!r} before any name: it points to an earlier turn")
    words = len(question.split())
    if not names and words <= t.follow_up_words and conversation.idle_s <= t.follow_up_seconds:
        return FollowUp(True, "short_soon", f"{words} words naming nothing, {conversation.idle_s:.0f} s after the "
                        "last turn")
    return FollowUp(False, "standalone", "names what it asks about")


def _names(question: str) -> list[str]:
    """The question's names, without a lone capitalised first word ("Population in 2001?")."""
    names = named_entities(question)
    # subtle: the entity finder keeps any capitalised first word that is not a question word
    if names and " " not in names[0] and question.lstrip().startswith(names[0]):
        return names[1:]
    return names


def check_rewrite(question: str, rewritten: str, conversation: Conversation) -> str:
    """Why the LM's standalone question is unusable, or "" when it is fine: it must differ from the
    follow-up and bring in a word of the session's topics that the follow-up lacked."""
    if not rewritten.strip():
        return "it is empty"
    if rewritten.strip().lower() == question.strip().lower():
        return "it repeats the follow-up"
    topic_words = {w for topic in conversation.topics() for w in _words(topic) if len(w) > 2}
    if not topic_words & (_words(rewritten) - _words(question)):
        return "it names none of the session's topics"
    return ""


def substitute(question: str, entity: str) -> str:
    """The rule-based rewrite: each pronoun becomes the entity ("its" -> "<entity>'s"); with no
    pronoun (an ellipsis), the entity is appended. Unchanged when there is no entity."""
    if not entity:
        return question
    if not _PRONOUN.search(question):
        return f"{question.strip().rstrip('?. ')}, regarding {entity}?"
    return _PRONOUN.sub(lambda m: _name_for(m, question, entity), question)


def _name_for(pronoun: re.Match, question: str, entity: str) -> str:
    word = pronoun.group().lower()
    following = re.match(r"\s+([A-Za-z]+)", question[pronoun.end():])
    owned = word == "her" and following is not None and following.group(1).lower() not in _NOT_OWNED
    return f"{entity}'s" if word in _OWNER or owned else entity


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))
