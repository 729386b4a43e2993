"""Recording a run's LM calls and replaying the loop against them: exact, closest and missing replies."""

import dspy

from metrics import score_example
from optimize.eval.example_schema import make_example
from optimize.replay.recorder import LMRecorder, read_calls
from optimize.replay.replay_lm import Recording, ReplayLM
from optimize.replay.replay_run import (
    actions,
    replay_afresh,
    replay_at,
    replay_examples,
    with_memo,
)
from optimize.replay.workers import TrialPool
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


def test_the_share_of_stand_in_replies_is_none_as_recorded_and_all_where_the_reader_sees_other_evidence(tmp_path):
    program, recording, _ = recorded(tmp_path)
    memo = with_memo(program)
    narrow = program.thresholds.model_copy(update={"top_k": 1})
    remembered = replay_at(memo, narrow, [QUESTION], recording, score_example)
    # a prediction another trial remembered does not hide the reply it stood in for
    assert replay_afresh(memo, program.thresholds, [QUESTION], recording, score_example)[1] == 0.0
    afresh, share = replay_afresh(memo, narrow, [QUESTION], recording, score_example)
    assert share == 1.0 and [r.actions for r in afresh] == [r.actions for r in remembered]


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


def test_forked_workers_replay_as_one_process_does_and_ask_the_job_what_their_memo_lacks(tmp_path):
    program, recording, _ = recorded(tmp_path)
    search = FakeSearch(DOCS)
    program.search = search
    memo = with_memo(program)
    examples = [QUESTION, make_example("q1b", QUESTION.question, ["Chief of Protocol"], ["Shirley Temple"])]
    with TrialPool(memo, examples, recording, score_example, workers=2) as pool:
        first = pool.replay(program.thresholds)  # forked with nothing searched: the job searched for both
        asked = pool.asked
        again = pool.replay(program.thresholds)  # the workers remember what they were told
        assert asked > 0 and pool.asked == asked
    alone = replay_at(memo, program.thresholds, examples, recording, score_example)
    assert [r.actions for r in first] == [r.actions for r in again] == [r.actions for r in alone]
    assert [r.scores.f1 for r in again] == [1.0, 1.0] and [r.qid for r in again] == ["q1", "q1b"]
    assert len(search.queries) == len(set(search.queries))  # each query searched once, by the job


def test_a_search_error_in_the_job_reaches_the_worker_as_it_would_the_loop(tmp_path):
    program, recording, _ = recorded(tmp_path)
    program.search = FailingSearch()
    examples = [QUESTION, make_example("q1b", QUESTION.question, ["Chief of Protocol"], ["Shirley Temple"])]
    with TrialPool(with_memo(program), examples, recording, score_example, workers=2) as pool:
        forked = pool.replay(program.thresholds)
    alone = replay_at(with_memo(program), program.thresholds, examples, recording, score_example)
    assert [r.actions for r in forked] == [r.actions for r in alone]


class FailingSearch:
    def __call__(self, query, k):
        raise OSError("index unreachable")


def test_a_remembered_prediction_asks_the_lm_nothing_and_still_counts_its_tokens(tmp_path):
    program, _, done = recorded(tmp_path)
    # the fake LM reports no usage: the recording says what a real one would have
    recording = Recording.of([c.model_copy(update={"prompt_tokens": 700}) for c in read_calls(tmp_path / "recording.jsonl")])
    memo = with_memo(program)
    first, asked_first = replay_examples(memo, [QUESTION], recording, score_example)
    again, asked_again = replay_examples(memo.deepcopy(), [QUESTION], recording, score_example)
    assert asked_first == {"exact": len(recording.exact)} and asked_again == {}
    assert again[0].actions == first[0].actions == done
    assert again[0].scores.prompt_tokens == first[0].scores.prompt_tokens > 0


def test_a_call_the_real_run_cut_off_at_its_time_limit_ends_the_replay_there_too(tmp_path):
    from optimize.eval.records import RecordLog
    from optimize.eval.runner import run_examples
    from tests.program.fake_openai import FakeOpenAI

    path, program = tmp_path / "recording.jsonl", GatedRAG(FakeSearch(DOCS))
    slow = FakeOpenAI(slow_s=30.0)
    slow.mode = "slow"
    try:
        with dspy.context(lm=slow.lm(), adapter=dspy.JSONAdapter(), callbacks=[LMRecorder(path)]):
            [real] = run_examples(program, [QUESTION], "real", RecordLog(tmp_path / "r.jsonl"), score_example,
                                  time_limit_s=1.0, progress=False)
    finally:
        slow.close()
    calls = read_calls(path)
    assert [c.cancelled for c in calls] == [True] and calls[0].messages and calls[0].output == ""
    with dspy.context(adapter=dspy.JSONAdapter()):  # the adapter the real run used
        replayed, found = replay_examples(program, [QUESTION], Recording.of(calls), score_example)
    assert real.result.trace.ended == "budget_exhausted" and replayed[0].actions == actions(real.result)
    assert found == {"cancelled": 1}
