"""program/answer/criteria.py: plain and regex elements, the domain checks, and how failures are worded."""

import time

import pytest

from program.answer.criteria import CHECKS, Criteria, compile_element, judge_criteria


def failed(answer, short_answer="", **criteria):
    return judge_criteria(answer, short_answer, Criteria(**criteria)).failed


def test_plain_text_matches_case_insensitively_as_whole_words():
    assert failed("Deploy it in US-EAST-1 [2].", required=("us-east-1",)) == ()
    assert failed("Deploy it in us-east-12 [2].", required=("us-east-1",)) == ('must mention "us-east-1"',)
    assert failed("Chief  of\nProtocol [1].", required=("chief of protocol",)) == ()


def test_a_requirement_needs_the_answer_itself_and_a_prohibition_covers_the_short_answer_too():
    assert failed("She held an office [1].", short_answer="Chief of Protocol", required=("Chief of Protocol",)) != ()
    assert failed("She held an office [1].", short_answer="Ambassador", prohibited=("ambassador",)) != ()


def test_citation_markers_are_not_text():
    assert failed("Use version 2 [1].", required=(r"re:\[1\]",)) == (r"must mention text matching /\[1\]/",)


def test_a_regex_element_is_searched_case_insensitively():
    assert failed("Runs on Python 3.12 [1].", required=(r"re:python 3\.1[0-9]",)) == ()
    assert failed("Runs on Python 3.9 [1].", required=(r"re:python 3\.1[0-9]",)) != ()


def test_prohibited_elements_fail_when_present():
    report = judge_criteria("Install boto and call it [1].", "", Criteria(prohibited=("boto", "re:deprecated")))
    assert report.failed == ('must not mention "boto"',) and report.share_met == 0.5


def test_bad_elements_are_one_line_errors_that_never_quote_the_pattern():
    with pytest.raises(ValueError, match=r"^not a regular expression this service runs in linear time .*: missing \)$") as error:
        compile_element("re:(unclosed")
    assert "unclosed" not in str(error.value)
    for empty in ("re:", "re:  ", "   "):
        with pytest.raises(ValueError):
            compile_element(empty)


@pytest.mark.parametrize("pattern", [r"(?:(?:a{999}){999}){999}", r"(?:a{1000}){1000}", r"((a{50}){50}){50}",
                                     r"(?<=x)y", r"(a)\1"])
def test_a_pattern_that_would_exhaust_memory_or_backtrack_is_refused_at_once(pattern):
    # compiled by a backtracking engine, the first grew a server to 24 GB before any match
    started = time.perf_counter()
    with pytest.raises(ValueError, match="linear time"):
        compile_element(f"re:{pattern}")
    assert time.perf_counter() - started < 1


def test_a_caller_s_pattern_matches_in_linear_time():
    text = "a" * 100_000 + "!"
    started = time.perf_counter()
    assert failed(text, required=("re:(a+)+$",)) == ("must mention text matching /(a+)+$/",)
    assert time.perf_counter() - started < 1


def test_the_aws_region_check_wants_a_region_code():
    assert failed("Create the bucket in eu-west-2 [1].", check="aws_region") == ()
    assert failed("Create the bucket in ap-southeast-1 [1].", check="aws_region") == ()
    assert failed("Create the bucket in Ireland [1].", check="aws_region") == (
        "must name an AWS region code such as us-east-1",)


def test_the_no_deprecated_check_fails_a_deprecated_runtime_offered_as_advice():
    assert failed("Set the runtime to python3.7 [1].", check="no_deprecated") != ()
    assert failed("Use nodejs14.x or boto [1].", check="no_deprecated") != ()
    assert failed("python3.7 is deprecated; upgrade to python3.12 [1].", check="no_deprecated") == ()
    assert failed("Use python3.12 and boto3 with java8.al2 [1].", check="no_deprecated") == ()


def test_the_code_example_check_wants_a_fenced_block():
    assert failed("Call it [1].\n```python\nprint(1)\n```", check="code_example") == ()
    assert failed("Call put_object [1].", check="code_example") == ("must include a fenced code example",)


def test_the_share_met_counts_every_criterion_and_is_none_without_any():
    report = judge_criteria("In us-east-1 [1].", "", Criteria(required=("us-east-1", "S3"), check="aws_region"))
    assert report.given == 3 and report.share_met == pytest.approx(2 / 3)
    assert judge_criteria("Anything.", "", Criteria()).share_met is None


def test_the_prompt_names_each_criterion_as_the_lm_reads_it():
    text = Criteria(required=("S3", r"re:v\d+"), prohibited=("boto",), check="aws_region").prompt()
    assert text == ('mention "S3"; mention text matching /v\\d+/; do not mention "boto"; '
                    f"{CHECKS['aws_region'].wants}")
    assert Criteria().prompt() == ""
