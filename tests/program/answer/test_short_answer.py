"""The short answer recorded: cleaned, capped, in agreement with the explanation; None is an answer."""

import pytest

from program.answer.short_answer import LIMIT, recorded_short_answer, says_unknown


@pytest.mark.parametrize("said", ["None", "null", "0", "nil", "false"])
def test_none_null_and_zero_are_answers_not_refusals(said):
    assert not says_unknown(said)


@pytest.mark.parametrize("said", ["unknown", "Not stated.", "N/A", "", "  "])
def test_unknown_and_empty_say_the_evidence_lacks_it(said):
    assert says_unknown(said)


def test_a_short_answer_that_disagrees_with_its_explanation_takes_the_explanation_s_answer():
    q = "What is the default maxsize of functools.lru_cache?"
    assert recorded_short_answer(q, "1", "The default maxsize of functools.lru_cache is 128 [2].") == "128"
    # a citation mark is no word of the explanation
    assert recorded_short_answer(q, "1", "The default maxsize of functools.lru_cache is 128 [1].") == "128"
    # nor is a mark that cites two passages: "1" is no word of "... is 128 [1, 2]."
    assert recorded_short_answer(q, "1", "The default maxsize of functools.lru_cache is 128 [1, 2].") == "128"
    assert recorded_short_answer(q, "128 [1, 2]", "The default maxsize is 128 [1, 2].") == "128"
    # the question's verb, as the explanation inflects it, is no answer: "listens" restates "listen"
    port = "On which port does the Flask development server listen by default?"
    assert recorded_short_answer(port, "1", "Flask listens on port 5000 by default [2].") == "5000"
    # but a name's capitalised word is no inflection: "States" is not the question's "state"
    county = "In which country is Midway, in the same county as McRae in the same state as KAGH-FM?"
    assert recorded_short_answer(county, "1", "Midway is in Mississippi, United States [4].") == "Mississippi, United States"


def test_of_equally_long_runs_the_explanation_s_answer_is_the_one_with_more_characters():
    q = "If you render math in MDX with rehype-katex, which stylesheet should you also use?"
    said = "To use rehype-katex, you should also use the stylesheet `katex.css` [2]."
    assert recorded_short_answer(q, "katex", said) == "katex.css"


def test_a_number_stands_beside_an_explanation_that_states_no_number():
    q = "For how many sessions does pytest keep tmp_path directories by default (tmp_path_retention_count)?"
    said = "pytest retains the `tmp_path` directories, according to `tmp_path_retention_policy` [1]."
    assert recorded_short_answer(q, "3", said) == "3"
    f1 = "What semantic F1 does the RAG module score off the shelf in DSPy's RAG tutorial?"
    assert recorded_short_answer(f1, "55%", "One of the various choices DSPy offers is optimizing the prompts [6].") == "55%"
    # a number the explanation opposes with its own still gives way
    chars = "What is the default truncation_limit_chars for pytest's assertion messages?"
    assert recorded_short_answer(chars, "640", "The default truncation_limit_chars is 90 [2].") == "90"


def test_an_explanation_cut_at_a_quote_does_not_overrule_the_short_answer():
    # the local LM's JSON grammar ends a string at `"`: `class="wikilink"` came back cut
    q = "What CSS class does the WikiLinks extension give its links by default?"
    assert recorded_short_answer(q, "wikilink", "Wiki Links are automatically assigned `class= [2]") == "wikilink"
    assert recorded_short_answer(q, "wikilink", "Its links get the attribute class= [2].") == "wikilink"
    # a whole code span is no cut
    assert recorded_short_answer(q, "1", "Wiki Links get the class `wikilink` [2].") == "wikilink"


def test_a_short_answer_that_agrees_is_kept_as_it_is():
    q = "Who played Corliss Archer in Kiss and Tell?"
    assert recorded_short_answer(q, "Shirley Temple", "Shirley Temple played Corliss Archer [1].") == "Shirley Temple"


def test_a_yes_or_no_stands_beside_an_explanation_that_never_says_it():
    assert recorded_short_answer("Were both American?", "yes", "Both are American [1][3].") == "yes"
    assert recorded_short_answer("In Amazon RDS, can I stop an instance?", "yes", "You can stop it for 7 days [1].") == "yes"
    # a query that asks nothing outright is left as it was, and so is one whose "when" opens a clause
    assert recorded_short_answer("1st battalion king's own", "yes", "It was stationed in Malta [1].") == "yes"
    clause = "when individuals buy a computer program they buy a license to"
    assert recorded_short_answer(clause, "yes", "Computers came in the early 1980s [1].") == "yes"


def test_a_yes_or_no_to_a_question_asking_for_a_span_takes_the_explanation_s_answer():
    said = "Sperm motility is activated by changes in intracellular ion concentration [1]. As a result, it moves [1]."
    where = "where do sperm gain the ability to swim"
    assert recorded_short_answer(where, "yes", said) == "activated by changes in intracellular ion concentration"
    assert recorded_short_answer("In which year did it open?", "No", "It opened in 1998 [2].") == "1998"
    # a count asked takes the explanation's one number
    assert recorded_short_answer("How many episodes is Superman in?", "yes", "Superman appears in 3 episodes [1].") == "3"
    # an explanation that says yes too has nothing else to give
    assert recorded_short_answer("Who wrote it?", "yes", "Yes [1].") == "yes"


def test_a_quoted_span_is_unquoted_and_capped_at_a_word_boundary():
    span = "«" + "the index of the first item whose value matches, searched from the start " * 3 + "»"
    said = recorded_short_answer("What does index return?", span, "")
    assert len(said) <= LIMIT and "«" not in said and said.startswith("the index") and not said.endswith(" ")
    assert recorded_short_answer("Q?", "“Chief of Protocol” [1]", "") == "Chief of Protocol"


def test_an_evidence_line_copied_whole_is_no_short_answer():
    q = "Which class of click.testing invokes a command line script in isolation for tests?"
    line = "index «Testing Click Applications: # Testing Click Applications For basic testing, Click provides"
    assert recorded_short_answer(q, line, line + " [2]") == ""
    assert says_unknown(recorded_short_answer(q, line, line))
    assert recorded_short_answer(q, f"[1] {line}", "The CliRunner class invokes it [1].") == "CliRunner"
    web = "web docs.python.org «json — JSON encoder and decoder: ..."
    assert recorded_short_answer("What encodes JSON?", web, "json.dumps encodes it [1].") == "json.dumps"
    assert recorded_short_answer("Which index?", "index 3", "Index 3 [1].") == "index 3"
    # a line's source tag alone, opening an answer the explanation gives without it
    assert recorded_short_answer("What position did she hold?", "index Chief of Protocol",
                                 "She was Chief of Protocol [1].") == "Chief of Protocol"
    assert recorded_short_answer("Who hosts it?", "web en.wikipedia.org BBC Two", "BBC Two hosts it [2].") == "BBC Two"
    # the line's opening copied in another quote mark, or in none
    titles = ["variables: interface for the variable matching and lookup. > Details > xsltEvalGlobalVariables ()"]
    copied = "index 'variables: interface for"
    assert recorded_short_answer("What does limitNr give?", copied, copied + " the variable matching [4].", titles) == ""
    assert recorded_short_answer("What does limitNr give?", "index variables: interface for",
                                 "limitNr is the number of variables which should remain [1].", titles) == \
        "variables which should remain"  # the explanation's own answer
    # a short answer beside a copied line keeps its own words: the copy explains nothing
    assert recorded_short_answer("In xsltLocalVariablePop, what does the limitNr parameter give?", "4",
                                 "index 'variables: interface for the variable matching and lookup'", titles) == "4"


def test_a_passage_s_heading_path_copied_is_no_short_answer_but_a_page_s_name_is():
    q = "Which Memcheck option tells you where an uninitialised value came from?"
    titles = ["4. Memcheck: a memory error detector > 4.2. Explanation of error messages from Memcheck", "Valgrind"]
    copied = "4. Memcheck: a memory error detector > 4.2. Explan"
    assert recorded_short_answer(q, copied, "The option is --track-origins=yes [1].", titles) == "--track-origins=yes"
    assert recorded_short_answer(q, "Overriding Dependencies >", "The option is --track-origins=yes [1].",
                                 ["Overriding Dependencies > Testing a bugfix"]) == "--track-origins=yes"
    # a title's first part is a name, and a name can be the answer
    assert recorded_short_answer("Who formed 2NE1?", "YG Entertainment", "YG Entertainment formed 2NE1 [1].",
                                 ["YG Entertainment > History", "2NE1"]) == "YG Entertainment"
    agreeing = "Memcheck sets it with --track-origins=yes [1]."  # shares "Memcheck" with the copy
    assert recorded_short_answer(q, copied, agreeing) == copied  # no title shown: nothing says it is a path
    assert "--track-origins=yes" in recorded_short_answer(q, copied, agreeing, titles)


def test_a_heading_path_copied_from_inside_a_title_is_no_short_answer_nor_is_an_explanation_s():
    q = "What does the XSLT_MAX_SORT macro set?"
    titles = ["xsltutils: set of utilities for the XSLT engine > Details > xsltDoSortFunction ()"]
    copied = "XSLT engine > Details > xsltDoSortFunction (): ### xsltDoSortFunction () void"
    assert recorded_short_answer(q, copied, "The macro is 15 [1].", titles) == "15"
    # the explanation is the passage's title and text: its answer is a path too, and nothing was answered
    assert recorded_short_answer(q, copied, titles[0] + ": ### xsltDoSortFunction () void [1]", titles) == ""
    assert recorded_short_answer("Which Rust version?", "std::collections > Background: A B-Tree",
                                 "It was 1.66.0 [1].", ["BTreeMap in std::collections > Background"]) \
        == "1.66.0"
    # a " > " between other words than a title's is no copy
    assert recorded_short_answer("Which is larger?", "x > y", "x > y holds [1].", titles) == "x > y"


def test_a_count_asked_and_not_given_is_the_one_number_of_the_sentence_or_the_explanation():
    q = "By default, how many listeners can be registered for any single event?"
    said = "The default maximum number of listeners for any single event on an EventEmitter is 10 [1]."
    assert recorded_short_answer(q, "maximum number", said) == "10"
    assert recorded_short_answer(q, "1", said) == "10"  # a number the explanation does not say
    arena = "The arena where the Lewiston Maineiacs played their home games can seat how many people?"
    assert recorded_short_answer(arena, "1", "The arena can seat up to 1,400 people [2].") == "1,400"  # not its "1"
    lake = "Brown State Fishing Lake is in a country that has a population of how many inhabitants?"
    assert recorded_short_answer(lake, "County, Kansas", "The county has a population of 9,984 [2].") == "9,984"
    sentence = "The lake is in a country that has a population of 9,984 inhabitants"
    assert recorded_short_answer(lake, sentence, sentence + " [4].") == "9,984"
    assert recorded_short_answer(lake, "9,984 inhabitants", sentence + " [4].") == "9,984 inhabitants"
    # a number the question already uses is not its answer; two candidates are a guess
    seto = "A manga about a 16 year old student is written by someone born in what year?"
    assert recorded_short_answer(seto, "Masakazu Katsura", "Masakazu Katsura drew the 16 year old [1].") == "Masakazu Katsura"
    assert recorded_short_answer(q, "maximum number", "The maximum number is 10, or 20 with a flag [1].") == "maximum number"
    # not where the short answer has a number, or where no count is asked
    assert recorded_short_answer(q, "10 listeners", said) == "10 listeners"
    assert recorded_short_answer("Which tool measures how much memory a program uses?", "Massif",
                                 "Massif measures heap memory, 1 snapshot at a time [1].") == "Massif"
