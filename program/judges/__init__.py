"""Learned judges: small fitted models the loop can read, stored as plain numbers in JSON (no pickle).

`program.judges.sufficiency`: P(the evidence as shown holds the answer | the retrieval signals).
Fitting them is `optimize.judges`' job; this package only predicts.
"""
