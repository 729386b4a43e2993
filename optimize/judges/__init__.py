"""Fitting the learned judges of `program.judges`: record retrieval-only rollouts on labelled questions
(`rollout`, `record`), label each state (`evidence_label`), fit (`fit`), pick a risk-controlled
threshold (`risk_control`) and print what a model weighs (`explain`)."""
