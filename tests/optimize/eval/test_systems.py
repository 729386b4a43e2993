"""The systems share the gated program's search and state, so only the loop differs."""

from optimize.eval import systems
from program.baselines import FixedHops, SinglePass
from program.loop import GatedRAG, LearnedGate
from program.thresholds import Thresholds
from tests.conftest import FakeSearch


def test_baselines_share_the_gated_programs_search_and_thresholds(monkeypatch):
    gated = GatedRAG(FakeSearch([]), thresholds=Thresholds(top_k=7))
    gated.synthesize.signature = gated.synthesize.signature.with_instructions("compiled instructions")
    monkeypatch.setattr(systems, "build_program", lambda settings, program_path: gated)
    built = systems.build_systems(None, ["gated", "single_pass", "fixed_hops"], None)
    assert built["gated"] is gated
    assert isinstance(built["single_pass"], SinglePass) and isinstance(built["fixed_hops"], FixedHops)
    for name in ("single_pass", "fixed_hops"):
        assert built[name].search is gated.search and built[name].thresholds.top_k == 7
        assert built[name].synthesize.signature.instructions == "compiled instructions"


def test_the_learned_gate_searches_the_gated_programs_web(monkeypatch):
    web = FakeSearch([])
    gated = GatedRAG(FakeSearch([]), web)
    monkeypatch.setattr(systems, "build_program", lambda settings, program_path: gated)
    built = systems.build_systems(None, ["gated", "learned"], None)
    assert isinstance(built["learned"], LearnedGate) and built["learned"].web is web
    assert built["learned"].sessions is gated.sessions
