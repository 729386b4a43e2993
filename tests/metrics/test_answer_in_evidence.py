"""Answer in evidence: the gold passages, or the gold answer string, in the evidence as the reader was shown it."""

import dspy

from metrics.answer_in_evidence import answer_in_evidence
from program.contract.result import Result
from tests.conftest import passage
from tests.metrics.conftest import example

PAGE = "guide/doc_source/page.md"


def shown(*passages, texts=None):
    """A prediction whose evidence is `passages`, each shown as `texts` (default: whole)."""
    evidence = list(passages)
    result = Result(question="q", answer="x", evidence=evidence, evidence_shown=texts or [p.text for p in evidence])
    return dspy.Prediction(answer="x", result=result, evidence=evidence)


def page_chunk(text: str, title: str = "Page"):
    chunk = passage(title, text)
    chunk.origin, chunk.doc_chunks = f"documents/{PAGE}", 4
    return chunk


def test_every_gold_passage_shown_holds_the_answer_and_a_missing_one_does_not():
    both = shown(passage("Shirley Temple", "a"), passage("Kiss and Tell", "b"))
    assert answer_in_evidence(example(), both) == 1.0 and answer_in_evidence(example(), both, trace=[]) is True
    one = shown(passage("Shirley Temple", "she was Chief of Protocol"), passage("Other", "c"))
    assert answer_in_evidence(example(), one) == 0.0  # the answer string does not stand in for a gold passage


def test_a_page_of_several_chunks_needs_the_answer_string_in_what_was_shown_after_trimming():
    gold = example(answer="M3 and R3 instances", gold=[PAGE])
    chunk = page_chunk("Encryption is available on M3 and R3 instances. Other text.")
    assert answer_in_evidence(gold, shown(chunk)) == 1.0
    # the same chunk trimmed to another sentence: the page was shown, the answer was not
    assert answer_in_evidence(gold, shown(chunk, texts=["Other text."])) == 0.0
    assert answer_in_evidence(gold, shown(passage("Elsewhere", "M3 and R3 instances"))) == 0.0  # page not shown


def test_without_gold_sources_the_normalized_answer_string_decides_word_for_word():
    gold = example(answer="The Chief of Protocol", gold=())
    assert answer_in_evidence(gold, shown(passage("A", "she was chief of protocol, in 1976"))) == 1.0
    assert answer_in_evidence(gold, shown(passage("A", "she was chief of protocols"))) == 0.0
    assert answer_in_evidence(example(answer="yes", gold=()), shown(passage("A", "yes"))) is None  # nothing to find


def test_it_does_not_apply_to_an_unanswerable_question_nor_to_a_result_that_kept_no_shown_text():
    unanswerable = example(answerable=False, gold=())
    assert answer_in_evidence(unanswerable, shown(passage("A", "a"))) is None
    assert answer_in_evidence(unanswerable, shown(passage("A", "a")), trace=[]) is False
    old = shown(passage("Shirley Temple", "a"))
    old.result.evidence_shown = []
    assert answer_in_evidence(example(), old) is None
    assert answer_in_evidence(example(), shown()) == 0.0  # nothing shown holds nothing
