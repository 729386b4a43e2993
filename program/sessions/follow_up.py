"""Follow-up questions in a session: the cues that one leans on earlier turns, and the rule-based rewrite
used when the LM's is unusable. Pure functions over the question and the session's recent turns.

A question is a follow-up when the session has a turn and the question opens with an ellipsis
("what about ...", "and the ...?"), uses a pronoun that no name of its own can explain ("What
is its capital?", "In what New York city is she based?"), or is short, names nothing, and comes
soon after the last turn. Anything else stands alone and costs no LM call. This module measures
the cues (`follow_up_cues`); the gate decides (`program.gate.follow_up`), before planning;
`Contextualize` writes the rewrite, `check_rewrite` vets it and `substitute` is the fallback.
No LM, no retrieval, no I/O here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from program.decomposition import named_entities
from program.sessions.conversation import Conversation

_ELLIPSIS = re.compile(r"^\W*(?:(?:what|how)\s+(?:about|else)|and|also|or)\b", re.I)
_PRONOUN = re.compile(r"\b(?:(?:this|that|the\s+same)\s+one|it|its|itself|they|them|their|theirs|he|him|his|"
                      r"she|her|hers)\b", re.I)
_OWNER = {"its", "their", "theirs", "his", "hers"}  # read as "<name>'s"
# what ends a clause: a name before one of these can be what a later pronoun points to
_CLAUSE_END = re.compile(r"[,;]|\b(?:and|but|or|who|whom|whose|which|that|when|where|while|before|after|because|"
                         r"since|until|if|though|although)\b", re.I)
# after "her", a word that makes it an object ("held by her in 1990"), not an owner ("her name")
_NOT_OWNED = set("in on at to for from by with and or as than about after before since until was is".split())


@dataclass(frozen=True)
class FollowUpCues:
    """What a question shows of leaning on earlier turns; the gate decides (`program.gate.follow_up`)."""

    has_turns: bool
    opener: str = ""  # the ellipsis it opens with ("what about"), if any
    pronoun: str = ""  # the first pronoun no name of its own explains, if any
    words: int = 0
    names_something: bool = True
    idle_s: float = 0.0  # since the session's last turn


def follow_up_cues(question: str, conversation: Conversation) -> FollowUpCues:
    """The cues of `question` against the session's recent turns; no decision."""
    if not conversation.turns:
        return FollowUpCues(has_turns=False)
    names = named_entities(question)
    opener = _ELLIPSIS.match(question)
    pronoun = _unexplained_pronoun(question, names)
    return FollowUpCues(has_turns=True, opener=opener.group().strip() if opener else "",
                        pronoun=pronoun.group() if pronoun else "", words=len(question.split()),
                        names_something=_names_something(question, names), idle_s=conversation.idle_s)


def _unexplained_pronoun(question: str, names: list[str]) -> re.Match | None:
    """The first pronoun no name of the question can be: an owner ("his", "its") may point to any
    name before it ("Patrick Kennedy is known for his tales"), another pronoun only to a name in an
    earlier clause ("When was Apple founded, and who runs it?", but not "Did Ed Wood direct it?")."""
    spans = [(i, i + len(n)) for n in names if (i := question.find(n)) > -1]
    for pronoun in _PRONOUN.finditer(question):
        if any(start <= pronoun.start() < end for start, end in spans):
            continue  # a word of a title ("Their Lives"), not a pronoun
        before = [end for _, end in spans if end <= pronoun.start()]
        owner = bool(before) and _owner(pronoun, question)
        if not owner and not any(_CLAUSE_END.search(question, end, pronoun.start()) for end in before):
            return pronoun
    return None


def _names_something(question: str, names: list[str]) -> bool:
    """Whether the question names anything beyond a lone capitalised first word ("Population in 2001?")."""
    # subtle: the entity finder keeps any capitalised first word that is not a question word
    lone_first = bool(names) and " " not in names[0] and question.lstrip().startswith(names[0])
    return len(names) > lone_first


def check_rewrite(question: str, rewritten: str, conversation: Conversation) -> str:
    """Why the LM's standalone question is unusable, or "" when it is fine: still a question, with
    at least half of the follow-up's own words, and a word of the session's topics the follow-up lacked."""
    rewritten = rewritten.strip()
    if not rewritten:
        return "it is empty"
    if rewritten.lower() == question.strip().lower():
        return "it repeats the follow-up"
    # subtle: a small LM asked to rewrite often answers instead ("Her position was ...")
    if question.strip().endswith("?") and not rewritten.endswith("?"):
        return "it is not a question"
    own = {w for w in _words(question) if len(w) > 2 and not _PRONOUN.fullmatch(w)}
    if len(own & _words(rewritten)) * 2 < len(own):
        return "it drops the follow-up's words"
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
    return f"{entity}'s" if _owner(pronoun, question) else entity


def _owner(pronoun: re.Match, question: str) -> bool:
    """"its", "their", "his": an owner; "her" only before a word it owns ("her name", not "by her in")."""
    word = pronoun.group().lower()
    following = re.match(r"\s+([A-Za-z]+)", question[pronoun.end():])
    return word in _OWNER or word == "her" and following is not None and following.group(1).lower() not in _NOT_OWNED


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))
