"""Demos from labels: the gold passages as the reader sees them, the gold answer, a cited sentence."""

import dspy

from optimize.eval.example_schema import make_example
from optimize.job.labelled_demos import (
    UNKNOWN,
    answer_shape,
    demo_pool,
    demo_sets,
    labelled_demo,
)
from program.loop import GatedRAG
from tests.conftest import FakeSearch, passage

DOCS = [passage("Kiss and Tell", "Kiss and Tell is a 1945 film. It stars Shirley Temple as Corliss Archer."),
        passage("Shirley Temple", "Shirley Temple was an actress. She was Chief of Protocol of the United States."),
        passage("Noise", "Shirley Temple noise that is no gold source of anything.")]
PROGRAM = GatedRAG(FakeSearch(DOCS))


def test_a_demo_shows_the_gold_passages_among_other_hits_and_cites_the_sentence_with_the_answer():
    example = make_example("t1", "Which office did the star of Kiss and Tell hold?", ["Chief of Protocol"],
                           ["Kiss and Tell", "Shirley Temple"])
    demo = labelled_demo(PROGRAM, example)
    assert "index «Kiss and Tell:" in demo.evidence and "index «Shirley Temple:" in demo.evidence
    assert "index «Noise:" in demo.evidence and demo.evidence.count("\n") == 2  # one other hit, as retrieval shows it
    assert demo.short_answer == "Chief of Protocol" and demo.sufficient
    assert demo.answer == "She was Chief of Protocol of the United States [2]."
    assert set(demo.inputs().keys()) == {"question", "evidence"}


def test_an_unanswerable_question_teaches_unknown_and_a_question_without_gold_gives_no_demo():
    unanswerable = make_example("t2", "When did Shirley Temple retire?", [], ["Shirley Temple"], answerable=False)
    demo = labelled_demo(PROGRAM, unanswerable)
    assert (demo.short_answer, demo.sufficient, demo.gaps) == (UNKNOWN, False, ["When did Shirley Temple retire?"])
    lost = make_example("t3", "Who wrote Kiss and Tell?", ["F. Hugh Herbert"], ["Some page not indexed"])
    assert labelled_demo(PROGRAM, lost) is None
    assert len(demo_pool(PROGRAM, [unanswerable, lost])) == 1


def test_an_answer_no_shown_sentence_states_gives_no_demo_and_a_yes_cites_the_gold_passage_s_first_sentence():
    program = GatedRAG(FakeSearch([passage("Kiss and Tell", "It starred Gabby Hayes. Kiss and Tell is a 1945 film.")]))
    inside_a_word = make_example("t6", "Who starred in Kiss and Tell?", ["Hay"], ["Kiss and Tell"])
    assert labelled_demo(program, inside_a_word) is None
    yes = make_example("t7", "Was Kiss and Tell a film?", ["yes"], ["Kiss and Tell"])
    assert labelled_demo(program, yes).answer == "It starred Gabby Hayes [1]."


def test_a_long_answer_is_cut_to_the_short_answer_cap_and_demo_sets_are_seeded():
    said = "a child actress who became a diplomat and served as ambassador to Ghana and to Czechoslovakia"
    program = GatedRAG(FakeSearch([passage("Shirley Temple", f"Shirley Temple was {said}.")]))
    long = make_example("t4", "What was Shirley Temple?", [said], ["Shirley Temple"])
    demo = labelled_demo(program, long)
    assert len(demo.short_answer) <= 80 and demo.answer == f"Shirley Temple was {said} [1]."
    pool = [_demo(f"name {c}") for c in "ABCDEFGHIJ"]
    assert demo_sets(pool, 3, 2, seed=1) == demo_sets(pool, 3, 2, seed=1)
    assert all(len({id(d) for d in s}) == 3 for s in demo_sets(pool, 3, 4, seed=1)) and demo_sets(pool, 0, 2, seed=1) == []


def test_each_demo_set_covers_the_answer_shapes_most_common_first():
    """The reader copies its demos' shape: a set of names alone made it answer yes/no questions with names."""
    pool = [_demo(f"Person {c}") for c in "ABCDEFGH"] + [_demo("yes"), _demo("no"), _demo("1945"), _demo(UNKNOWN)]
    assert [answer_shape(d.short_answer) for d in pool[7:]] == ["name", "yes/no", "yes/no", "number", "unknown"]
    for chosen in demo_sets(pool, 3, 5, seed=2):
        assert sorted(answer_shape(d.short_answer) for d in chosen) == ["name", "number", "yes/no"]
    two = demo_sets(pool, 2, 5, seed=2)
    assert all(sorted(answer_shape(d.short_answer) for d in s) == ["name", "yes/no"] for s in two)
    assert len({tuple(id(d) for d in s) for s in two}) > 1  # seeded draws, not one fixed set
    names_only = demo_sets(pool[:8], 3, 1, seed=2)[0]
    assert len({id(d) for d in names_only}) == 3


def _demo(short: str):
    return dspy.Example(question="q", evidence="e", short_answer=short).with_inputs("question", "evidence")


def test_a_gold_page_only_the_offline_web_holds_is_found_there():
    from program.retrieval.web_search import OfflineWeb

    web_only = GatedRAG(FakeSearch(DOCS[:1]), web=OfflineWeb(FakeSearch(DOCS[1:2])))
    example = make_example("t5", "Which office did Shirley Temple hold?", ["Chief of Protocol"], ["Shirley Temple"])
    demo = labelled_demo(web_only, example)
    assert "web example.org «Shirley Temple:" in demo.evidence
