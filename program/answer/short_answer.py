"""What a draft's short answer says: whether it is "I don't know", and the span to record.

A small LM's short answer drifts from its own explanation: "1" beside "The default maxsize of
functools.lru_cache is 128 [2]", or a whole quoted passage past the 80-character cap. The span
recorded is the short answer cleaned and capped, and, when it shares no word with the
explanation, copies an evidence line (`index «Testing Click Applications: …»`) or copies a
passage's heading path ("4. Memcheck: a memory error detector > 4.2. Explan…": where the answer
is, not what it is), the explanation's own answer, unless it is a number and the explanation
states none ("3" sessions beside "pytest retains the directories according to its policy"). A yes
or no to a question that asks who, where or how is such a drift too ("yes", for where sperm gain
the ability to swim, beside "Sperm motility is activated by changes in intracellular ion
concentration [1]"). A line's source tag that opens it ("index Chief of Protocol") is dropped.
Where a count is asked ("By default, how many listeners ...?") and the short answer is a
sentence, or no number the explanation says ("maximum number", "1"), the one number of the
sentence, or of the explanation, is. `None`, `null` and `0` are answers ("what does shutil.which
return if no command is found?"), not refusals. No LM, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from program.answer.citations import first_sentence, strip_markers
from program.evidence import NUMERAL, is_year

# what a small LM writes for "the evidence does not say"; subtle: not "none", which is an answer
_UNKNOWN = re.compile(r"^\W*(unknown|not (stated|given|found|mentioned|known)|n/a|no answer|cannot be determined)\W*$",
                      re.IGNORECASE)
_QUOTES = "\"'“”‘’«»`"
# subtle: a grouped number is one word: "1" is no word of "1,400"
_WORD = re.compile(r"[\w.-]+(?:,\d+)*")
# answers that are no span of any passage: the passages state them, they do not spell them out
VERDICTS = frozenset("yes no true false".split())
LIMIT = 80  # the signatures' ShortAnswer cap, which the LM's grammar does not always hold
# an evidence line copied whole (program.evidence.format_evidence: `index «title: text»`); « is the
# evidence's own quote mark, never an answer's
_ECHO = re.compile(r"^\W*(\[\d+\]\s*)?(index|web)\b[^«\n]{0,80}«")
# a line's source tag alone, as it opens a copied line: `index`, or `web` and a host
_TAG = re.compile(r"^\W*(?:\[\d+\]\s*)?(?:index|web(?:\s+[\w-]+(?:\.[\w-]+)+)?)\s+")
# a measure "how" asks for: how many, how long ...
_MEASURE = r"(?:many|much|long|old|far|tall|big|large)\b"
# subtle: documentation asks counts as "what is the maximum number of …" (quotas, limits, defaults);
# up to three words may qualify it ("Amazon Forecast's maximum number of columns")
_COUNTING = re.compile(r"\bhow " + _MEASURE + r"|\b(what|which) year\b"
                       r"|\bwhat (percentage|proportion|fraction)\b"
                       r"|\b(what|which) (is|are|was|were) (?:[\w'’-]+ ){0,3}?(number|count|percentage|amount) of\b",
                       re.IGNORECASE)
# a number alone, as a short answer gives it: "3", "4,093", "55%", "$0.10"
_AMOUNT = re.compile(rf"[$€£]?{NUMERAL.pattern}\s?%?")
# a span of time asked; subtle: not how many, whose count can be 1500 or 2014 with no comma
_DURATION = re.compile(r"\bhow (long|old)\b", re.IGNORECASE)
_SINCE = re.compile(r"\bsince\b", re.IGNORECASE)
# a question asks after at most a leading phrase ("In Amazon RDS, can I ...")
_LEADING_PHRASE = r"^\W*(?:[^,?]{1,60},\s*)?"
# and a preposition ("In which year ...")
_LEAD = _LEADING_PHRASE + r"(?:(?:in|on|at|by|for|from|of|to|during|since|until|under|after|before)\s+)?"
_AUXILIARY = r"(?:is|are|was|were|am|do|does|did|can|could|will|would|shall|should|may|might|must|has|have|had)\b"
# a question that asks yes or no opens with an auxiliary or modal verb; any other question or
# search query asks for a span
_POLAR = re.compile(_LEADING_PHRASE + _AUXILIARY, re.IGNORECASE)
# a question opening with which, what or who asks what its opening asks: "Which tool measures how
# much memory ...?" wants a name, not a number
_NAMING = r"(?:which|what|who|whom|whose)\b"
_OPENING_ASK = re.compile(_LEAD + r"(?=" + _NAMING + ")", re.IGNORECASE)
# a question asking for a span: which, what or who, or where, when, why or how asking ("where do
# sperm gain ...", "how many ..."), not opening a clause ("when individuals buy a program, they ...")
_WH_OPENING = re.compile(_LEAD + r"(?:" + _NAMING + r"|(?:where|when|why|how)(?:'s\b|\s+"
                         r"(?:to\b|often\b|" + _MEASURE + "|" + _AUXILIARY + ")))",
                         re.IGNORECASE)
# words an explanation restates its question with: the verb, articles, and pronouns for its names
_RESTATING = frozenset("is was are were the a an of it its he she they him her them his their".split())
_NUMBER = re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
                     r"fifty|hundred|thousand|million|billion|dozen|several|many|few)\b", re.IGNORECASE)


def says_unknown(short_answer: str) -> bool:
    return bool(_UNKNOWN.match(short_answer.strip())) or not short_answer.strip()


def is_verdict(short_answer: str) -> bool:
    """A yes or no (true or false): an answer, but no span."""
    return short_answer.strip(" .!").lower() in VERDICTS


def asks_yes_or_no(question: str) -> bool:
    """The question opens with an auxiliary or modal verb ("Were both ...?", "In Amazon RDS, can I ...?")."""
    return bool(_POLAR.match(question))


def asks_span(question: str) -> bool:
    """The question opens asking who, what, which, or where, when, why or how (followed by an
    auxiliary, "to" or a measure): it asks for something a yes or no does not give."""
    return bool(_WH_OPENING.match(question))


def asks_count(question: str) -> bool:
    """The question asks how many, how much, how long and the like, which year, or what number or
    percentage of something."""
    opening = _OPENING_ASK.match(question)
    return bool(_COUNTING.match(question, opening.end())) if opening else bool(_COUNTING.search(question))


def says_number(text: str) -> bool:
    return bool(_NUMBER.search(text))


def dates_a_duration(short_answer: str, question: str) -> bool:
    """A question asking how long or how old is answered with one year and no other number: a
    date, not a span of time ("first announced in February 2014", for how long a show runs).
    "since 2014" and a span of years do say how long."""
    numbers = NUMERAL.findall(short_answer)
    return (bool(_DURATION.search(question)) and len(numbers) == 1 and is_year(numbers[0])
            and not _SINCE.search(short_answer))


def recorded_short_answer(question: str, short_answer: str, explanation: str, titles: Iterable[str] = ()) -> str:
    """The short answer as a clean span of at most `LIMIT` characters that agrees with the
    explanation; the explanation's own answer (see `_explained`) when the short answer copies an
    evidence line (`_copies_line`) or spans a heading-path separator of one of the shown passages'
    `titles` (`_copies_path`), "" when the explanation has none; the short answer itself when the
    explanation was cut at a quote (`_cut_at_quote`); and when the short answer shares
    no word with the explanation and is no number it leaves unopposed (`_unopposed_number`), or is a
    yes or no where the question asks for a span (`asks_span`), that answer or else the short answer
    itself. Where a count is asked, the one number of a short
    answer that is a sentence, or else of the explanation (see `_own_count`)."""
    titles = tuple(titles)
    if _copies_line(short_answer, titles):
        return _explained(question, explanation, titles)
    short = _untagged(_clean(short_answer), explanation)
    if says_unknown(short) or not explanation.strip() or _cut_at_quote(explanation):
        return short
    if is_verdict(short) and not asks_span(question):
        return short
    if asks_count(question) and (count := _own_count(question, short, explanation)):
        return count
    if _copies_path(short, titles):
        return _explained(question, explanation, titles)
    if _agrees(short, explanation) or _unopposed_number(short, explanation):
        return short
    return _explained(question, explanation, titles) or short


def _cut_at_quote(explanation: str) -> bool:
    """The explanation stops where its text meant to write a double quote: under the local LM's JSON
    grammar a `"` ends the string, so "… assigned `class="wikilink"`" came back as
    "Wiki Links are automatically assigned `class= [2]", beside the short answer "wikilink". Such
    an explanation ends in `=` or inside a code span, and states no answer to hold the short one to."""
    text = strip_markers(explanation).rstrip(" .")
    return text.endswith("=") or text.count("`") % 2 == 1


def _explained(question: str, explanation: str, titles: tuple[str, ...]) -> str:
    """The explanation's own answer; "" when the explanation copies an evidence line (it explains
    nothing: the short answer "4" beside "index 'variables: interface for the variable matching and
    lookup'") or its answer copies a heading path."""
    if _copies_line(explanation, titles):
        return ""
    own = _own_answer(question, explanation)
    return "" if _copies_path(own, titles) else own


def _copies_line(text: str, titles: tuple[str, ...]) -> bool:
    """The text copies an evidence line: its source tag and «, or its source tag and the first words
    of a shown passage's title in another quote mark or none ("index 'variables: interface for",
    "index Automate model development with")."""
    if _ECHO.match(text):
        return True
    tag = _TAG.match(text)
    words = text[tag.end():].strip(_QUOTES + " ").casefold().split() if tag else []
    return any(words[:n] == opening[:n] for title in titles
               if (opening := title.casefold().split()) and (n := min(3, len(opening))) <= len(words))


def _untagged(short: str, explanation: str) -> str:
    """The short answer without the source tag it opens with, copied from an evidence line's
    opening ("index Chief of Protocol"), unless the explanation says the tag's word too ("index 3")."""
    tag = _TAG.match(short)
    if not tag or short.casefold() in strip_markers(explanation).casefold():
        return short
    return short[tag.end():].strip()


def _copies_path(short: str, titles: Iterable[str]) -> bool:
    """The short answer spans a heading-path separator of a shown passage's title: a " > " in it
    stands in a title between the same two words ("XSLT engine > Details > xsltTimestamp ()",
    copied from "xsltutils: set of utilities for the XSLT engine > Details > xsltTimestamp ()").
    subtle: a title alone ("YG Entertainment", a page's name) can be the answer; its path cannot."""
    words = short.split()
    # the title's last heading runs into the passage's text after a colon ("… > Background: A B-Tree …")
    steps = [" ".join(words[i - 1:i + 2]).rstrip(":") for i, word in enumerate(words) if word == ">" and i > 0]
    flat = [" ".join(title.split()) for title in titles]
    return any(step in title for step in steps for title in flat)


def _clean(text: str) -> str:
    # subtle: « » are the evidence's own quote marks (program.evidence.quoted): never part of an answer
    text = strip_markers(text).replace("«", "").replace("»", "").strip().strip(_QUOTES + " .").strip()
    if len(text) <= LIMIT:
        return text
    cut = text[:LIMIT].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-" + _QUOTES)


def _words(text: str) -> set[str]:
    return {w.strip(".-").lower() for w in _WORD.findall(text)} - {""}


def _agrees(short: str, explanation: str) -> bool:
    # subtle: not the explanation's citation marks: "1" is no word of "... is 10 [1]."
    return bool(_words(short) & _words(strip_markers(explanation)))


def _unopposed_number(short: str, explanation: str) -> bool:
    """The short answer is a number ("3", "4093", "55%") and the explanation states none, so it says
    nothing the number disagrees with: the explanation drifted, not the answer ("3" sessions beside
    "pytest retains the directories according to tmp_path_retention_policy [1]").
    subtle: not "1", the small reader's filler (its first citation's number). Over the runs of the
    four corpora and five documentation sets at f8d9468, the LM's short answer was a "1" that the
    recorded one replaced on 16 drafts and re-reads, and none was right."""
    return short != "1" and bool(_AMOUNT.fullmatch(short)) and not NUMERAL.search(strip_markers(explanation))


def _own_count(question: str, short: str, explanation: str) -> str | None:
    """Where a count is asked, the one number the question does not use: of the short answer
    when it is a sentence ("The lake is in a country that has a population of 9,984
    inhabitants"), else of the explanation's first sentence ("maximum number", or "1", beside
    "The default maximum number of listeners ... is 10."). None for a short count the
    explanation agrees with ("128 bits"), and where there is no such number, or several."""
    sentence_long = len(short.split()) > 3
    if says_number(short) and not sentence_long and _agrees(short, explanation):
        return None
    sentence = short if sentence_long and NUMERAL.search(short) else first_sentence(strip_markers(explanation))
    asked = set(NUMERAL.findall(question))
    numbers = {n for n in NUMERAL.findall(sentence) if n not in asked}
    return numbers.pop() if len(numbers) == 1 else None


def _own_answer(question: str, explanation: str) -> str:
    """The longest run of the explanation's first sentence made of words the question does not
    use: "The default maxsize of functools.lru_cache is 128 [2]" answers "128". Of runs as many
    words long, the one with the most characters: "To use rehype-katex, you should also use the
    stylesheet `katex.css`" answers "katex.css", not "To". A pronoun stands for a name the question
    gives: "She held an office", for which office the star held, answers nothing, not "She held"."""
    first = first_sentence(strip_markers(explanation))
    asked = _words(question) | _RESTATING
    runs, run = [], []
    for word in first.split():
        if _asked(word.strip(".,;:!?" + _QUOTES), asked):
            runs.append(run)
            run = []
        else:
            run.append(word)
    runs.append(run)
    best = max(runs, key=lambda run: (len(run), len(" ".join(run))))
    return _clean(" ".join(best).strip(".,;:!?"))


def question_writes(question: str, word: str) -> bool:
    """Whether the question writes the word, as a word or a part of a dotted name (`from_prefixed_env`
    of `Config.from_prefixed_env`), or, in lowercase, the word is one of those plus -s (`_asked`)."""
    words = _words(question)
    return _asked(word, words | {part for w in words for part in w.split(".")})


def _asked(word: str, asked: set[str]) -> bool:
    """The word is one the question uses, or, in lowercase, its -s form: "Flask listens on port
    5000" restates "which port does the server listen on?" but for "5000". subtle: a capitalised
    word belongs to a name, which inflects nothing: "United States" answers "in which state?".
    Not the Snowball stem the signals match terms with: it makes "imperialism" the question's
    "imperial" too, and of the own answers of cef2f72's recorded explanations (the four corpora,
    Flask, pytest, MDX) it moved 16, "South Pacific, …" (gold "South Pacific") to "colonial
    empire in Africa and" among them."""
    lower = word.lower()
    return lower in asked or (word.islower() and len(word) > 3 and word.endswith("s")
                              and not word.endswith("ss") and word[:-1] in asked)
