"""A program as a model server runs it: with no LM configured, pickled as its saved state, and
answering with the response contract.

MLflow's DSPy flavor pickles the module and calls it with no LM in the settings. A served program
(`Served`, over the gated loop or a baseline, as the `system` setting says) then takes the
settings' default LM (`program.lm.default_lm`), and pickles as its saved state only, so no store
handle, file lock or API key ever lands in a pickle: the loading process rebuilds its system,
search and web from its own settings (`rebuild`). Its prediction's fields are those of
`program.contract.answer_response.AnswerResponse` as JSON, so the MLflow model's predictions are the same
contract as HTTP and MCP. The loop itself knows nothing of this.
"""

from __future__ import annotations

import copy

import dspy

from program.assembly.factory import build_program
from program.assembly.loading import apply_state, check_state
from program.base.settings import Settings
from program.baselines import SYSTEMS
from program.contract.answer_response import respond
from program.contract.result import Result
from program.hints import Hints
from program.lm.default_lm import default_lm
from program.lm.lm_profiles import json_adapter
from program.loop import GatedRAG


class Served:
    """Mixed into a system of `program.baselines.SYSTEMS`; its `forward` answers with the contract."""

    settings: Settings | None = None  # what `rebuild` read; the default LM is started from them

    def forward(self, question: str, hints: Hints | None = None, time_limit_s: float | None = None,
                include_trace: bool = False, session_id: str | None = None) -> dspy.Prediction:
        result = self._result(question, hints, time_limit_s, session_id)
        # subtle: MLflow's pyfunc returns `prediction.toDict()`, so these fields are the model's output
        return dspy.Prediction(**respond(result, include_trace=include_trace).model_dump(mode="json"))

    def _result(self, question: str, hints: Hints | None, time_limit_s: float | None, session_id: str | None) -> Result:
        if dspy.settings.lm is None:  # loaded on its own (an MLflow model, say): use the settings' LM
            with dspy.context(lm=default_lm(self.settings or Settings()), adapter=json_adapter()):
                return super().forward(question, hints, time_limit_s, session_id).result
        return super().forward(question, hints, time_limit_s, session_id).result

    def __deepcopy__(self, memo):
        # the default deep copy; spelled out because pickling (below) must differ from it
        new = self.__class__.__new__(self.__class__)
        memo[id(self)] = new
        new.__dict__.update({k: copy.deepcopy(v, memo) for k, v in self.__dict__.items()})
        return new

    def __reduce__(self):
        return rebuild, (self.dump_state(),)


# one served class a system, each its system's forward under `Served.forward`
SERVED: dict[str, type[GatedRAG]] = {name: type(f"Served{system.__name__}", (Served, system), {})
                                     for name, system in SYSTEMS.items()}


def rebuild(state: dict) -> GatedRAG:
    """Unpickling, in a process that only has its environment: the one place a served model
    reads its settings from there."""
    where = "the pickled MLflow model"
    check_state(state, where)  # before the store opens: a bad state fails in one line, changing nothing
    settings = Settings()
    served = apply_state(build_program(settings, program_class=SERVED[settings.system]), state, where,
                         settings.serving_model)
    served.settings = settings
    return served
