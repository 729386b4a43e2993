"""Rule-based decomposition: named entities, query type and sub-queries for HotpotQA- and AWS-style questions."""

import dataclasses

import pytest

from program.decomposition import (
    Plan,
    compared_names,
    describes_an_entity,
    named_entities,
    rule_based_plan,
)

LOCAL_H = "Are Local H and For Against both from the United States?"
SACHIN = "Where is the company that Sachin Warrier worked for as a software engineer headquartered? "
CORLISS = "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?"
EGEBERG = ("Roger O. Egeberg was Assistant Secretary for Health and Scientific Affairs during the administration "
           "of a president that served during what years?")


@pytest.mark.parametrize("text, entities", [
    # a sentence-initial question word goes; a capitalised "For" inside the sentence starts a name
    (LOCAL_H, ["Local H", "For Against", "United States"]),
    ("Were Scott Derrickson and Ed Wood of the same nationality?", ["Scott Derrickson", "Ed Wood"]),
    # connectors inside a name; "and" joins only after "of"/"for" or in a named work
    (EGEBERG, ["Roger O. Egeberg", "Assistant Secretary for Health and Scientific Affairs"]),
    (CORLISS, ["Corliss Archer", "Kiss and Tell"]),
    ("Who founded Tata Consultancy Services and who was its first Chief of Protocol?",
     ["Tata Consultancy Services", "Chief of Protocol"]),
    ("Who directed The Lord of the Rings?", ["The Lord of the Rings"]),
    ("Who was born first, Ludwig van Beethoven or Wolfgang Amadeus Mozart?",
     ["Ludwig van Beethoven", "Wolfgang Amadeus Mozart"]),
    # initials, numbers that belong to a name, and a year that only dates the sentence
    ("Are both Elko Regional Airport and Gerald R. Ford International Airport located in Michigan?",
     ["Elko Regional Airport", "Gerald R. Ford International Airport", "Michigan"]),
    ("Are Random House Tower and 888 7th Avenue both used for real estate?", ["Random House Tower", "888 7th Avenue"]),
    ("2014 S/S is the debut album of a South Korean boy group that was formed by who?", ["2014 S/S"]),
    ("In 1991 Euromarché was bought by a chain that operated how any hypermarkets at the end of 2016?", ["Euromarché"]),
    ("Which year was the 14th season for this conference as part of the NCAA Division?", ["NCAA Division"]),
    # an adjective of origin and a bare date are not things to look up
    ("Kaiser Ventures corporation was founded by an American industrialist?", ["Kaiser Ventures"]),
    ("Which man who presented the bid was born on October 22, 1930?", []),
    # quoted titles stay whole, in order of appearance with the other names
    ('Who directed "The Lord of the Rings" and when was it released?', ["The Lord of the Rings"]),
    ("Which film came out first, 'Blade Runner' or 'Alien'?", ["Blade Runner", "Alien"]),
    ("Did Peter Jackson direct “The Hobbit: An Unexpected Journey”?", ["Peter Jackson", "The Hobbit: An Unexpected Journey"]),
    ("Why is the players' union against it?", []),
    # the AWS domain: acronyms, CamelCase and technical tokens
    ("How do I create an S3 bucket with versioning enabled using boto3?", ["S3", "boto3"]),
    ("Does NASA use DynamoDB for telemetry?", ["NASA", "DynamoDB"]),
    ("What is the maximum storage for Oracle on db.t2.small?", ["Oracle", "db.t2.small"]),
    ("Is Amazon Aurora faster than Amazon RDS for MySQL?", ["Amazon Aurora", "Amazon RDS for MySQL"]),
    ("Can I use my own keys in AWS KMS to encrypt data?", ["AWS KMS"]),
    ("What is the maximum number of security groups associated with a load balancer?", []),
    # a possessive owns a code identifier: two names; it owns a word of a title: one
    ("What is the default value of Flask's SESSION_COOKIE_NAME setting?", ["Flask", "SESSION_COOKIE_NAME"]),
    ("Does Django's QuerySet.iterator cache results?", ["Django", "QuerySet.iterator"]),
    ("Who directed Schindler's List?", ["Schindler's List"]),
    ("Is Kevin Costner's McFarland USA a sports film?", ["Kevin Costner's McFarland USA"]),
    # a passage's heading and the paragraph under it: a blank line ends a name, a wrapped line does not
    ("Configuring from Environment Variables\n\nIn addition, Amazon Simple\nStorage Service",
     ["Configuring", "Environment Variables", "Amazon Simple\nStorage Service"]),
])
def test_named_entities(text, entities):
    assert named_entities(text) == entities


@pytest.mark.parametrize("question, query_type", [
    (LOCAL_H, "comparison"),
    ("Who is older, Annie Morton or Terry Richardson?", "comparison"),
    ("Which writer was from England, Henry Roth or Robert Erskine Childers?", "comparison"),
    ("Were Scott Derrickson and Ed Wood of the same nationality?", "comparison"),
    ("Is Annie Morton older than Terry Richardson?", "comparison"),
    ("Did Franki Valli sing with Hellogoodbye or The Four Seasons?", "comparison"),
    ("What profession does H. L. Mencken and Albert Camus have in common?", "comparison"),
    ("What is the difference between Amazon SQS and Amazon SNS?", "comparison"),
    # "and" between two names, or "both" with one name, compares nothing
    ("Did Tom Hanks and Meg Ryan star in Sleepless in Seattle?", "factual"),
    ("Are both of the Vermont Catamounts teams in a conference?", "factual"),
    ("How do I create an S3 bucket with versioning enabled using boto3?", "how_to"),
    ("How to migrate from Amazon RDS to Amazon Aurora?", "how_to"),
    ("How can I rotate keys in AWS KMS?", "how_to"),
    ("What are the main features of Amazon DynamoDB?", "exploratory"),
    ("Explain how IAM roles work with Amazon EC2 instances.", "exploratory"),
    ("Give me an overview of AWS Lambda", "exploratory"),
    # a "how many" question is a fact, not a how-to
    ("The arena where the Lewiston Maineiacs played their home games can seat how many people?", "factual"),
    (SACHIN, "factual"),
])
def test_query_type(question, query_type):
    assert rule_based_plan(question).query_type == query_type


@pytest.mark.parametrize("question, queries", [
    # a comparison: one query per compared name, with what is compared, without the other name
    (LOCAL_H, ("Local H United States", "For Against United States")),
    ("Were Scott Derrickson and Ed Wood of the same nationality?", ("Scott Derrickson nationality", "Ed Wood nationality")),
    ("Which writer was from England, Henry Roth or Robert Erskine Childers?",
     ("Henry Roth writer England", "Robert Erskine Childers writer England")),
    ("Who is older, Annie Morton or Terry Richardson?", ("Annie Morton born", "Terry Richardson born")),
    # a bridge: the inner clause, led by the name it holds, then the outer head noun
    (SACHIN, ("Sachin Warrier worked software engineer company",)),
    ("The football manager who recruited David Beckham managed Manchester United during what timeframe?",
     ("David Beckham recruited football manager", "Manchester United manager recruited managed timeframe")),
    (CORLISS, ("Corliss Archer portrayed woman", "Kiss and Tell held woman portrayed film")),
    # a conjunction of questions: its clauses; one that names nothing borrows the first clause's name
    ("Who founded Tata Consultancy Services and where is its headquarters?",
     ("Who founded Tata Consultancy Services", "Tata Consultancy Services headquarters")),
    # otherwise: each name with the content words nearest to it in its own clause
    ("Hayden is a singer-songwriter from Canada, but where does Buck-Tick hail from?",
     ("Hayden singer-songwriter", "Canada singer-songwriter", "Buck-Tick hail")),
    ("Brown State Fishing Lake is in a country that has a population of how many inhabitants ?",
     ("Brown State Fishing Lake country population",)),
])
def test_sub_queries(question, queries):
    assert rule_based_plan(question).sub_queries == queries


def test_a_bridge_that_is_the_whole_question_gives_way_to_the_name():
    plan = rule_based_plan("Where is the company that Sachin Warrier worked for?")
    assert plan.sub_queries == ("Sachin Warrier worked",)


def test_a_repeated_clause_is_planned_once():
    question = "Who founded Tata Consultancy Services and where is its headquarters and where is its headquarters?"
    assert rule_based_plan(question).sub_queries == ("Who founded Tata Consultancy Services",
                                                     "Tata Consultancy Services headquarters")


def test_no_names_and_no_pattern_leave_only_the_question():
    assert rule_based_plan("What race track in the midwest hosts a 500 mile race every May?") == Plan((), "factual", ())


@pytest.mark.parametrize("question", [
    LOCAL_H, SACHIN, CORLISS, EGEBERG,
    "A medieval fortress in Dirleton, East Lothian, Scotland borders on the south side of what coastal area?",
    "What is the capital of France?",
    "Which Eminem album included vocals from a singer who had an album titled \"Unapologetic\"?",
    "Which Very Long Named International Organisation For The Advancement Of Extraordinarily Verbose Titles "
    "And Other Things Of Considerable Length was founded by the Extremely Lengthy Committee Of Founders?",
])
def test_every_plan_is_short_distinct_and_never_the_question(question):
    plan = rule_based_plan(question)
    assert len(plan.sub_queries) <= 3
    assert all(0 < len(q) < 100 for q in plan.sub_queries)
    assert len({q.lower() for q in plan.sub_queries}) == len(plan.sub_queries)
    assert question.strip().lower() not in {q.strip().lower() for q in plan.sub_queries}
    assert plan.key_concepts == tuple(named_entities(question))
    assert len(rule_based_plan(question, max_queries=1).sub_queries) <= 1
    assert plan.sub_queries[:1] == rule_based_plan(question, max_queries=1).sub_queries


def test_a_question_that_is_all_one_name_plans_the_name_not_the_question_again():
    # the single query with every content word would be the question again, so the words stop short
    plan = rule_based_plan("This singer of A Rather Blustery Day also voiced what hedgehog?")
    assert plan.sub_queries == ("A Rather Blustery Day singer voiced",)
    assert plan.key_concepts == ("A Rather Blustery Day",)


def test_plan_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        rule_based_plan(LOCAL_H).query_type = "factual"


def test_compared_names_are_the_two_sides_of_a_comparison_and_nothing_else():
    assert compared_names("Who is older, Annie Morton or Terry Richardson?") == ("Annie Morton", "Terry Richardson")
    assert compared_names("Were Scott Derrickson and Ed Wood of the same nationality?") == ("Scott Derrickson", "Ed Wood")
    assert compared_names("Where is the company that Sachin Warrier worked for headquartered?") == ()


@pytest.mark.parametrize("question, described", [
    ("Where is the company that Sachin Warrier worked for as a software engineer headquartered?", True),
    ("The arena where the Lewiston Maineiacs played their home games can seat how many people?", True),
    ("Who was the first president of Damerjog's country?", True),  # a possessive
    ("What is the players' union of the NFL called?", True),
    ("What is the maximum unzipped deployment package size in AWS Lambda?", False),
    ("Which TLS version is used in Amazon Forecast?", False),  # the opening word asks; it describes nothing
    ("Dirleton's medieval fortress borders on the south side of what coastal area?", True),
    ("A medieval fortress in Dirleton, East Lothian, Scotland borders on what coastal area?", True),
    ("Where is Kochi?", False),
    ("What's the maximum function timeout in AWS Lambda?", False),  # a contraction, not a possessive
    ("Are Random House Tower and 888 7th Avenue both used for real estate?", False),
])
def test_a_question_describes_what_it_asks_about_with_a_relative_word_or_a_possessive(question, described):
    assert describes_an_entity(question) is described
