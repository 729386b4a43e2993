"""Reading [n] markers, and attaching a best-match citation to uncited sentences."""

from program.answer.citations import attach_missing, cited_numbers
from program.evidence import Shown
from tests.conftest import passage

SHOWN = [Shown(1, passage("Scott Derrickson", "Scott Derrickson is an American director."), "Scott Derrickson is an American director."),
         Shown(2, passage("Ed Wood", "Ed Wood was an American filmmaker."), "Ed Wood was an American filmmaker.")]


def test_cited_numbers_reads_every_form_once_in_order():
    assert cited_numbers("A [2]. B [1, 3][2]. C [10]") == [2, 1, 3, 10]


def test_uncited_sentences_get_the_best_matching_passage():
    answer, added = attach_missing("Yes. Ed Wood was a filmmaker [2].", "Were Derrickson and Wood both American?", SHOWN)
    assert added == 1
    assert answer.startswith("Yes [")
    assert answer.endswith("filmmaker [2].")


def test_nothing_is_attached_without_overlap_or_evidence():
    assert attach_missing("Zebra.", "Quokka?", SHOWN) == ("Zebra.", 0)
    assert attach_missing("Yes.", "Ed Wood?", []) == ("Yes.", 0)


def test_code_blocks_get_no_citation_and_keep_their_lines():
    code = "```python\n# Ed Wood was American.\nprint(names[1])\n```"
    answer, added = attach_missing(f"Ed Wood was American [2]. Print it:\n{code}\nDone.", "Was Ed Wood American?", SHOWN)
    assert code in answer and added == 2  # "Print it:" and "Done." got one each, the code none
    assert cited_numbers(code) == [] and cited_numbers(answer) == [2]  # names[1] indexes a list, it cites nothing
