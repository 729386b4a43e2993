"""Recording a run's LM calls and replaying the loop against them: exact, closest and missing replies."""

import dspy

from metrics import score_example
from optimize.eval.example_schema import make_example
from optimize.replay.recorder import LMRecorder, read_calls
from optimize.replay.replay_lm import Recording, ReplayLM
from optimize.replay.replay_run import actions, replay_examples, with_memo
from program.loop import GatedRAG
from tests.conftest import FakeSearch, passage, scripted_lm

DOCS = [passage("Kiss and Tell", "Kiss and Tell is a 1945 film starring Shirley Temple as Corliss Archer."),
        passage("Shirley Temple", "Shirley Temple was Chief of Protocol of the United States.")]
ANSWER = {"short_answer": "Chief of Protocol", "answer": "Shirley Temple was Chief of Protocol [2]."}
QUESTION = make_example("q1", "Which office did Shirley Temple hold?", ["Chief of Protocol"], ["Shirley Temple"])


def recorded(tmp_path):
    """One real-looking run of the loop, its calls recorded, and what it did."""
    path = tmp_path / "recording.jsonl"
    program = GatedRAG(FakeSearch(DOCS))
    with dspy.context(lm=scripted_lm(ANSWER, ANSWER), callbacks=[LMRecorder(path)]):
        done = actions(program(question=QUESTION.question).result)
    return program, Recording.of(read_calls(path)), done


def test_a_replay_under_the_recorded_thresholds_takes_the_recorded_actions(tmp_path):
    program, recording, done = recorded(tmp_path)
    replayed, found = replay_examples(program, [QUESTION], recording, score_example)
    assert done[-1] == "answered" and replayed[0].actions == done and found == {"exact": len(recording.exact)}
    assert replayed[0].scores.f1 == 1.0 and replayed[0].scores.lm_calls == len(recording.exact)


def test_new_evidence_gets_the_reply_recorded_for_the_closest_prompt(tmp_path):
    program, recording, _ = recorded(tmp_path)
    wider = program.deepcopy()  # other thresholds that find a third passage: the LM is shown other evidence
    wider.search = FakeSearch(DOCS + [passage("Shirley Temple Black", "Shirley Temple Black held an office.")])
    replayed, found = replay_examples(wider, [QUESTION], recording, score_example)
    assert found.get("closest", 0) >= 1 and replayed[0].scores.f1 == 1.0


def test_a_question_never_recorded_gets_an_empty_reply_and_the_loop_falls_back(tmp_path):
    program, recording, _ = recorded(tmp_path)
    other = make_example("q2", "Which film starred Shirley Temple as Corliss Archer?", ["Kiss and Tell"], [])
    lm = ReplayLM(recording)
    with dspy.context(lm=lm):
        pred = program(question=other.question)
    assert lm.found["missing"] >= 1 and any("malformed LM output" in w for w in pred.result.warnings)


def test_memoised_searches_ask_the_index_once_per_query_and_copies_share_them():
    search = FakeSearch(DOCS)
    memo = with_memo(GatedRAG(search))
    first = memo.search("Shirley Temple", 3)
    assert memo.deepcopy().search("Shirley Temple", 3) == first and search.queries == ["Shirley Temple"]


def test_a_stand_in_reply_cites_where_its_passages_stand_in_the_new_evidence():
    from optimize.replay.recorder import Call
    from optimize.replay.replay_lm import renumbered

    def asked(evidence):
        return [{"role": "system", "content": "s"},
                {"role": "user", "content": f"[[ ## question ## ]]\nq\n\n[[ ## evidence ## ]]\n{evidence}"}]

    old = asked("[1] index «Alpha: a»\n[2] index «Beta: b»")
    new = asked("[1] index «Gamma: c»\n[2] index «Beta: b»\n[3] index «Alpha: a»")
    call = Call(messages=old, output='{"short_answer": "b", "answer": "B [2], after A [1]; [9] is nowhere."}')
    assert renumbered(call, new) == '{"short_answer": "b", "answer": "B [2], after A [3]; [9] is nowhere."}'


def test_a_memoised_search_offers_only_what_the_wrapped_one_has():
    memo = with_memo(GatedRAG(FakeSearch(DOCS))).search
    assert not hasattr(memo, "embed") and not hasattr(memo, "neighbours")  # the loop then skips both
