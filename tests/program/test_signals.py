"""The retrieval signals on hand-built score lists, vectors and pools."""

from dataclasses import replace

import pytest

from program.gate import (
    adaptive_cut,
    covered,
    pageless_gaps,
    plateau,
    redundancy,
    uncovered,
)
from program.signals import (
    answer_reached,
    answer_support,
    bridge_entities,
    echoes,
    fits_question,
    has_page,
    loosely_mentions,
    measure,
    mentions,
    question_terms,
    score_cliff,
    source_similarity,
    titled_after,
    top_spread,
    unused_terms,
)
from program.thresholds import Thresholds
from tests.conftest import passage

T = Thresholds()


def test_score_cliff_finds_the_largest_relative_gap_and_where_it_is():
    gap, before = score_cliff([0.8, 0.78, 0.4, 0.38])
    assert before == 2 and gap == pytest.approx(0.38 / 0.8)


def test_a_flat_list_has_no_cliff():
    gap, _ = score_cliff([0.5, 0.5, 0.49, 0.49])
    assert gap < 0.03


@pytest.mark.parametrize("scores", [[], [0.7], [-0.1, -0.2]])
def test_too_few_or_negative_scores_give_no_cliff(scores):
    assert score_cliff(scores)[0] == 0.0


def test_adaptive_cut_keeps_as_many_as_stand_before_the_cliff_and_one_more_in_engine_order():  # the gate's cut
    hits = [passage(f"p{i}", "x", similarity=s) for i, s in enumerate([0.5, 0.9, 0.48, 0.47, 0.46])]
    assert [p.title for p in adaptive_cut(hits, T)] == ["p0", "p1"]


def test_without_a_cliff_the_cut_keeps_top_k():
    hits = [passage(f"p{i}", "x", similarity=s) for i, s in enumerate([0.6, 0.59, 0.58, 0.57])]
    assert len(adaptive_cut(hits, T.model_copy(update={"top_k": 3}))) == 3


def test_adaptive_cut_is_capped_at_top_k_and_drops_what_is_under_the_floor():
    hits = [passage(f"p{i}", "x", similarity=s) for i, s in enumerate([0.9, 0.89, 0.88, 0.87, 0.86, 0.1])]
    assert [p.title for p in adaptive_cut(hits, T.model_copy(update={"top_k": 3}))] == ["p0", "p1", "p2"]


def test_the_cut_has_its_own_knob_apart_from_the_answer_now_cliff():
    hits = [passage(f"p{i}", "x", similarity=s) for i, s in enumerate([0.5, 0.9, 0.48, 0.47, 0.46])]
    assert len(adaptive_cut(hits, T.model_copy(update={"cut_cliff": 0.9, "cliff_to_answer": 0.0}))) == T.top_k


def test_the_spread_is_how_far_the_kth_score_falls_under_the_best():
    assert top_spread([0.49, 0.5, 0.3], 2) == pytest.approx(0.01)
    assert top_spread([0.5], 3) == 1.0  # one score: nothing to be flat against


def test_the_gate_calls_a_plateau_flat_and_mediocre():
    def flat(scores):
        return plateau(measure({"Q?": scores}, "Q?", [], [], T), T)
    assert flat([0.5, 0.49, 0.49])
    assert not flat([0.9, 0.89, 0.89])  # flat, but a good best score
    assert not flat([0.5, 0.3, 0.2])  # a clear best


def test_mentions_matches_the_name_or_all_its_words():
    assert mentions("Ed Wood", "Edward D. Wood Jr., known as Ed Wood, was a filmmaker.")
    assert mentions("Local H", "H is a local band")
    assert not mentions("Ed Wood", "Scott Derrickson is an American director.")


def test_loosely_mentions_forgives_a_typo_but_not_another_name():
    memorial = "Livesey Hall War Memorial is a war memorial in Bexley, London."
    assert not mentions("Livesey Hal War Memorial", memorial) and loosely_mentions("Livesey Hal War Memorial", memorial)
    assert loosely_mentions("Livesy Hall", memorial)
    flipkart = "Sachin Bansal is an Indian software engineer who co-founded Flipkart."
    assert not loosely_mentions("Sachin Warrier", flipkart)
    assert not loosely_mentions("PutObject", "GetObject retrieves an object from Amazon S3.")


def test_measure_names_the_names_no_word_of_the_pool_is_close_to():
    pool = [passage("Livesey Hall War Memorial", "It commemorates the fallen of the Second World War.")]
    s = measure({"Q": [0.6]}, "Q", ["Livesey Hal War Memorial", "Ed Wood"], pool, T)
    assert s.missing_entities == ("Livesey Hal War Memorial", "Ed Wood") and s.unnamed == ("Ed Wood",)


def test_echoes_are_each_vectors_nearest_earlier_one_and_the_gate_counts_the_near_duplicates():
    near = echoes([[1, 0], [1, 0.01], [0, 1]])
    assert near[0] == -1.0 and near[1] == pytest.approx(1.0, abs=1e-3) and near[2] == pytest.approx(0.01, abs=1e-3)
    assert redundancy(replace(measure({"Q?": [0.5]}, "Q?", [], [], T), echoes=near), T) == pytest.approx(1 / 3)
    assert redundancy(replace(measure({"Q?": [0.5]}, "Q?", [], [], T), echoes=echoes([[1, 0], [0, 1]])), T) == 0.0


def test_measure_reports_uncovered_sub_queries_and_missing_entities():
    pool = [passage("Scott Derrickson", "Scott Derrickson is an American director.")]
    ranked = {"Q?": [0.7, 0.4], "Scott Derrickson": [0.8], "Ed Wood nationality": [0.3]}
    s = measure(ranked, "Q?", ["Scott Derrickson", "Ed Wood"], pool, T)
    assert uncovered(s, T) == ("Ed Wood nationality",) and s.missing_entities == ("Ed Wood",)
    assert s.entity_coverage == 0.5 and s.best == 0.7 and s.min_coverage == 0.3
    assert not covered(s, T)


def test_a_query_searched_on_the_web_is_no_longer_uncovered():
    s = measure({"Q?": [0.7], "Ed Wood": [0.3]}, "Q?", [], [], T, searched_web={"Ed Wood"})
    assert s.sub_queries == () and uncovered(s, T) == () and covered(s, T)


def test_gain_is_the_coverage_the_round_added():
    before = measure({"Q?": [0.7]}, "Q?", ["Ed Wood"], [], T)
    after = measure({"Q?": [0.7]}, "Q?", ["Ed Wood"], [passage("Ed Wood", "Ed Wood was American.")], T, before=before)
    assert after.gain == pytest.approx(1 / 3)  # entity coverage 0 -> 1, one of three coverage parts


def test_saturation_is_pool_tokens_over_the_budget():
    pool = [passage("a", "w" * 400)]
    s = measure({"Q?": [0.7]}, "Q?", [], pool, T.model_copy(update={"evidence_tokens": 101}))
    assert s.saturation == pytest.approx(1.0)


def test_signals_go_into_a_trace_as_numbers():
    s = measure({"Q?": [0.7, 0.2]}, "Q?", [], [], T)
    trace = s.as_trace()
    assert trace["cliff"] == pytest.approx(0.714, abs=1e-3) and "uncovered" not in trace


SACHIN = "Where is the company that Sachin Warrier worked for as a software engineer headquartered?"
WARRIER = passage("Sachin Warrier", "Sachin Warrier is a playback singer. He was working as a software engineer "
                  "in Tata Consultancy Services in Kochi.")


def test_question_terms_leave_out_names_and_asking_words():
    assert question_terms(SACHIN, ["Sachin Warrier"]) == ["company", "engineer", "headquartered", "software", "worked"]
    assert question_terms("Who is older, Annie Morton or Terry Richardson?", ["Annie Morton", "Terry Richardson"]) == []


def test_unused_terms_compare_by_stem():
    assert unused_terms(["worked", "seated", "headquartered"], "He was working there; 3,677 seats.") == ("headquartered",)


def test_the_bridge_is_the_name_in_the_sentence_that_matches_the_question():
    other = passage("Sachin Bansal", "Sachin Bansal is an Indian Software engineer and Internet entrepreneur.")
    assert bridge_entities(SACHIN, ["Sachin Warrier"], [other, WARRIER]) == ("Tata Consultancy Services", "Kochi")
    bare = passage("Sachin Warrier", "Sachin Warrier is a playback singer.")
    assert bridge_entities(SACHIN, ["Sachin Warrier"], [bare]) == ()


def test_a_page_that_shares_no_term_with_the_question_bridges_through_its_first_sentence():
    """The question's relation is paraphrased ("located in" for "a town in"): the page's first
    sentence, which says what its subject is and where it belongs, is the bridge."""
    q = "Who was in charge of the country where Ceelmakoile is located?"
    town = passage("Ceelmakoile", "Ceelmakoile is a town in the central Hiran region of Somalia. It is mostly "
                   "inhabited by the Hawadle clan.")
    assert bridge_entities(q, ["Ceelmakoile"], [town]) == ("Hiran", "Somalia")
    later = town.model_copy(update={"chunk_index": 1})  # a later chunk's first sentence is no page's lead
    assert bridge_entities(q, ["Ceelmakoile"], [later]) == ()


def test_a_question_that_names_all_it_asks_about_goes_through_no_bridge():
    # a documentation page's best sentence names its link targets and notes, not a second hop
    q = "What is the maximum unzipped deployment package size in AWS Lambda?"
    limits = passage("AWS Lambda quotas", "AWS Lambda deployment package size is 250 MB (unzipped), see "
                     "Concepts.Storage.GeneralSSD and the Lambda Developer Guide.")
    assert bridge_entities(q, ["AWS Lambda"], [limits]) == ()
    described = "Which guide covers the deployment package size that AWS Lambda allows?"
    assert bridge_entities(described, ["AWS Lambda"], [limits]) != ()


def test_a_page_is_a_passage_whose_title_names_it():
    pool = [WARRIER, passage("Tata Consultancy Services", "TCS is a company.")]
    assert has_page("Tata Consultancy Services", pool) and not has_page("Kochi", pool)


def test_measure_reports_the_term_gap_and_the_bridges_with_no_page():
    s = measure({SACHIN: [0.8]}, SACHIN, ["Sachin Warrier"], [WARRIER], T)
    assert s.missing_terms == ("company", "headquartered") and s.term_coverage == pytest.approx(0.6)
    assert s.unmet_bridges == ("Tata Consultancy Services", "Kochi") and not covered(s, T)


@pytest.mark.parametrize("name, title, own", [
    ("Hayden", "Hayden (musician)", True),
    ("Sergio Perez", "Sergio Pérez", True),
    ("david beckham", "David Beckham", True),
    ("David Beckham", "David Beckham Academy", False),
    ("Ed Wood", "Edward Wood", False),
    ("JSON", "json — JSON encoder and decoder", True),  # a Sphinx page: the module, then what it is
    ("Amazon S3", "Amazon S3: Buckets and objects", True),
    ("Python", "functools — Higher-order functions", False),
])
def test_a_page_titled_after_a_name_is_its_own_page_disambiguation_and_accents_aside(name, title, own):
    assert titled_after(name, passage(title, "text")) is own


def test_a_passage_is_a_name_s_own_by_its_heading_path_or_file_name_too():
    section = passage("Amazon Forecast", "Each dataset holds at most 3 billion rows.").model_copy(
        update={"heading_path": ["Amazon Forecast", "Quotas"], "origin": "guides.tar.gz!/forecast/limits.md"})
    assert titled_after("Quotas", section) and titled_after("limits", section)
    assert not titled_after("DynamoDB", section)


def test_a_bridge_is_never_a_capitalised_first_word_a_short_acronym_or_a_foreign_script():
    q = "What forum did the statesman who led the Soviet Union initiate?"
    lead = passage("Soviet Union", "However, Mikhail Gorbachev (Михаил Горбачёв) led the Soviet Union on TV and initiated a forum.")
    assert bridge_entities(q, ["Soviet Union"], [lead]) == ("Mikhail Gorbachev",)


def test_an_uncovered_sub_query_is_a_pageless_gap_only_when_a_name_of_it_has_no_page():
    pool = [passage("Buck-Tick", "Buck-Tick is a rock band from Fujioka."),
            passage("Hayden (musician)", "Hayden is a singer-songwriter from Canada.")]
    ranked = {"Q?": [0.6], "Buck-Tick hail": [0.3], "Ed Wood nationality": [0.3], "born where exactly": [0.3]}
    s = measure(ranked, "Q?", ["Buck-Tick"], pool, T)
    assert uncovered(s, T) == ("Buck-Tick hail", "Ed Wood nationality", "born where exactly")
    assert pageless_gaps(s, T) == ("Ed Wood nationality", "born where exactly")


def test_a_page_the_question_spells_out_holds_the_names_the_extractor_split_from_it():
    q = "Which band, Letters to Cleo or Screaming Trees, had more members?"
    pool = [passage("Letters to Cleo", "Letters to Cleo is a band."), passage("Screaming Trees", "A band.")]
    s = measure({q: [0.6]}, q, ["Letters", "Cleo", "Screaming Trees"], pool, T)
    assert s.compared == 2 and s.compared_pageless == () and s.pageless == ()


def test_with_no_bridge_page_the_terms_count_only_where_the_question_s_names_are():
    q = "The arena where the Lewiston Maineiacs played their home games can seat how many people?"
    team = passage("Lewiston Maineiacs", "The Lewiston Maineiacs played their home games at the Androscoggin Bank Colisée.")
    other = passage("Verizon Wireless Arena", "The arena can seat 10,000 people.")
    s = measure({q: [0.7]}, q, ["Lewiston Maineiacs"], [team, other], T)
    assert s.unmet_bridges == ("Androscoggin Bank Colisée",) and "seat" in s.missing_terms
    met = measure({q: [0.7]}, q, ["Lewiston Maineiacs"], [team, other, passage("Androscoggin Bank Colisée", "It can seat 4,000 people.")], T)
    assert met.unmet_bridges == () and met.missing_terms == ()


def test_a_bridge_comes_from_a_page_on_a_question_name_not_a_page_that_mentions_it():
    q = "The manager who recruited David Beckham managed Manchester United during what timeframe?"
    ferguson = passage("Alex Ferguson", "Ferguson managed Manchester United and recruited players from Burnley.")
    assert bridge_entities(q, ["David Beckham", "Manchester United"], [ferguson]) == ()
    united = passage("Manchester United", "Manchester United recruited David Beckham under Alex Ferguson.")
    assert bridge_entities(q, ["David Beckham", "Manchester United"], [united, ferguson]) == ("Alex Ferguson",)


def test_the_bridge_sentence_is_the_best_one_that_names_something_new():
    q = "Dirleton's medieval fortress borders on the south side of what coastal area?"
    village = passage("Dirleton", "Dirleton is a medieval village. It lies south of the Yellowcraigs nature reserve.")
    assert bridge_entities(q, ["Dirleton"], [village]) == ("Yellowcraigs",)


def test_after_a_web_search_a_bridge_question_s_terms_count_in_the_web_s_pages_too():
    q = "The arena where the Lewiston Maineiacs played their home games can seat how many people?"
    team = passage("Lewiston Maineiacs", "The Lewiston Maineiacs played their home games at the Androscoggin Bank Colisée.")
    found = passage("Androscoggin Colisee - Wikipedia", "The arena can seat 4,000 people.", source="web")
    s = measure({q: [0.7]}, q, ["Lewiston Maineiacs"], [team, found], T, searched_web={q})
    assert s.missing_terms == () and covered(s, T)


@pytest.mark.parametrize("short, question, fits", [
    ("Victoria Cross", "who is awarded the honour of victoria cross", False),  # an echo of the question
    ("The panic of 1837 had an effect on Texas", "why did the panic of 1837 have an effect on texas", False),
    ("Ed Wood", "Who is older, Scott Derrickson or Ed Wood?", True),  # a choice the question offers
    ("Wood", "Who is older, Scott Derrickson or Ed Wood?", True),
    ("Robert Erskine Childers DSC", "Which writer was from England, Henry Roth or Robert Erskine Childers?", True),
    ("Annie Richardson", "Who is older, Annie Morton or Terry Richardson?", False),  # neither option
    ("Robert Caesar Childers", "Which writer was from England, Henry Roth or Robert Erskine Childers?", False),
    ("American", "What nationality were both Scott Derrickson and Ed Wood?", True),  # no choice offered
    ("Jacob", "how many episodes of supergirl is superman in", False),  # not a number
    ("three", "how many episodes of supergirl is superman in", True),
    ("128", "What is the default maxsize of functools.lru_cache?", True),
    # a count asked in a clause is not what the question asks; its opening is
    ("Massif", "Which Valgrind tool is a heap profiler that measures how much heap memory a program uses?", True),
    ("--num-callers", "Which option sets how many entries a stack trace shows?", True),
    ("Dr. Bear", "The 1920 Summer Olympics were held in a city founded in what year?", False),
    ("Bob", "By default, how many listeners can be registered for any single event?", False),
    # one year says when, not how long; a count may look like a year
    ("first announced in February 2014 and premiered", "how long is ex on the beach on for", False),
    ("since 2014", "how long is ex on the beach on for", True),
    ("1939 to 1945", "How long did the war last?", True),
    ("1500", "How many seats does the hall have?", True),
    # documentation asks its limits as "what is the maximum number of …"; a choice of setting is a name
    ("console, AWS Command Line Interface (AWS CLI), or AWS SDK", "What is maximum number of datasets in Amazon Forecast?",
     False),
    ("static plus tunable", "What is the max number of defined per hyperparameter tuning job?", False),
    ("1500", "What is maximum number of datasets in Amazon Forecast?", True),
    ("10", "What is Amazon Forecast's maximum number of columns in an item metadata dataset?", True),
    ("Miguel de Cervantes Prize", "In the country that Jiménez is a part, what percentage of edits were from there?",
     False),
    ("workers", "Which setting controls the number of threads?", True),
    ("Nigella", "How to Eat, released in which year, is a book by the celebrity cook Nigella Lawson", False),
    # yes or no answers only a question that asks it, in any corpus: not a wh-question or a search query
    ("yes", "where do sperm gain the ability to swim", False),
    ("Yes.", "1st 4th battalion king's own royal lancaster regiment", False),
    ("no", "In Amazon RDS, can I exceed my credit balance?", True),
    ("no", "Does CloudTrail monitor calls to runtime_InvokeEndpoint?", True),
    ("yes", "Are Giuseppe Verdi and Ambroise Thomas both Opera composers ?", True),
    # an identifier is one word: its value is no echo of its name, nor a prefix of a name of it
    ("session", "What is the default value of Flask's SESSION_COOKIE_NAME setting?", True),
    ("FLASK_", "What prefix does Flask's Config.from_prefixed_env load environment variables with by default?", True),
    ("SESSION_COOKIE_NAME", "What is the default value of Flask's SESSION_COOKIE_NAME setting?", False),
    ("from_prefixed_env", "What does Flask's Config.from_prefixed_env load?", False),
    # a lowercase name the question does not write is no echo of the words it is named for
    ("skip", "Which pytest marker skips a test function, with an optional reason?", True),
    ("remark-math", "Which remark plugin adds support for math syntax to MDX?", True),
    ("wikilink", "What CSS class does the WikiLinks extension give its links by default?", True),
    ("db.t2.small", "What is the maximum storage for Oracle on db.t2.small?", False),  # written as asked
    ("listens", "On which port does the Flask development server listen by default?", False),  # plus -s
    ("a", "In which mode does pytest open its log file by default (log_file_mode)?", False),  # no name at all
    ("Ethiopia", "The battle in which Giuseppe Arimondi lost his life secured what for Ethiopia?", False),
    ("The Criminal Investigator", "What is the acronym for the statewide criminal investigation agency?", False),
])
def test_a_short_answer_fits_its_question_when_it_adds_to_it(short, question, fits):
    assert fits_question(short, question) is fits


def test_an_answer_s_source_is_the_cited_passage_using_most_of_it_and_its_similarity_is_read():
    vent = ("Hydrothermal vent A black smoker is a hydrothermal vent found on the seabed.", 0.47)
    volcano = ("Mauna Kea Mauna Kea is a dormant volcano on the island of Hawaii.", 0.27)
    assert source_similarity("Mauna Kea", [vent, volcano]) == 0.27
    assert source_similarity("the seabed", [vent, volcano]) == 0.47
    assert source_similarity("Mauna Kea", [vent, ("Mauna Kea - Wikipedia Mauna Kea is a volcano.", None)]) is None
    assert source_similarity("yes", [volcano]) is None and source_similarity("Etna", [volcano]) is None


def test_answer_support_is_the_share_of_the_answer_one_cited_passage_uses():
    cited = ["Shirley Temple served as Chief of Protocol.", "Kiss and Tell is a film."]
    assert answer_support("Chief of Protocol", cited, "Which office did she hold?") == 1.0
    assert answer_support("Prime Minister", cited, "Which office did she hold?") == 0.0
    assert answer_support("yes", cited, "Was she an actress?") == 1.0
    assert answer_support("yes", cited, "Which office did she hold?") == 0.0


def test_an_answer_is_reached_from_a_question_name_directly_or_through_a_page_a_reached_passage_names():
    warrier = passage("Sachin Warrier", "He worked as a software engineer in Tata Consultancy Services.")
    tcs = passage("Tata Consultancy Services", "Tata Consultancy Services is headquartered in Mumbai.")
    actor = passage("Phil Mitchell", "Phil Mitchell is a character in a soap opera set in Mumbai.")
    names = ["Sachin Warrier"]
    assert answer_reached("Sachin Warrier's employer", [warrier], [warrier, tcs, actor], names)
    assert answer_reached("Mumbai", [tcs], [warrier, tcs, actor], names)  # the hop: Warrier's page names the company
    assert not answer_reached("Mumbai", [actor], [warrier, tcs, actor], names)  # nothing on Warrier leads there
    assert not answer_reached("Mumbai", [tcs], [tcs, actor], names)  # the bridge page is missing
    # the link read the other way: the answer's page names the subject of a reached one
    mentor = passage("Ravi Nair", "Ravi Nair trained Tata Consultancy Services engineers in Pune.")
    assert answer_reached("Pune", [mentor], [warrier, tcs, mentor], names)


def test_a_place_is_linked_by_its_name_without_its_qualifier():
    fawell = passage("Harris W. Fawell", "Fawell is a graduate of West Chicago High School.")
    city = passage("West Chicago, Illinois", "West Chicago is a city in DuPage County, Illinois.")
    assert answer_reached("DuPage County", [city], [fawell, city], ["Harris W. Fawell"])


def test_documentation_passages_are_reached_by_their_heading_path_and_unrelated_sections_are_not():
    # a user's own docs: the name is in a section's heading path, not its text
    lock = passage("Cargo.lock", "The lock file records the exact version of every dependency.")
    lock = lock.model_copy(update={"heading_path": ["The Cargo Book", "Cargo.toml vs Cargo.lock"], "origin": "guide/cargo-toml-vs-cargo-lock.md"})
    proxy = passage("Network proxies", "Set `HTTPS_PROXY` to the address of the proxy, such as a version control server.")
    question_names = ["Cargo"]
    assert answer_reached("the exact version", [lock], [lock, proxy], question_names)
    assert not answer_reached("a version control server", [proxy], [lock, proxy], question_names)


def test_nothing_to_reach_for_a_question_naming_nothing_a_verdict_or_a_span_no_passage_uses():
    actor = passage("Phil Mitchell", "Phil Mitchell is a character in a soap opera.")
    assert answer_reached("a character", [actor], [actor], [])
    assert answer_reached("yes", [actor], [actor], ["Sachin Warrier"])
    assert answer_reached("Mumbai", [actor], [actor], ["Sachin Warrier"])  # answer_support's to refuse


def test_a_count_in_digits_is_supported_by_a_passage_that_spells_it_out_and_the_other_way():
    nfl = ["During the regular season in the NFL, only one overtime period is played."]
    assert answer_support("1", nfl, "how many ots are there in the nfl") == 1.0
    assert answer_support("two", ["The band released 2 albums."], "How many albums did the band release?") == 1.0
    assert answer_support("3", nfl, "how many ots are there in the nfl") == 0.0
