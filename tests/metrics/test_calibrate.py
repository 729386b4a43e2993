"""WiCE loading (passages a citation would quote) and the calibration figures, on a tiny file."""

import json

import pytest

from metrics.calibrate import calibrate, load_claims


def test_calibration_on_hand_made_claims(tmp_path):
    rows = [
        {"label": "supported", "claim": "A is B.", "evidence": ["x", "A is B indeed."], "supporting_sentences": [[1]]},
        {"label": "not_supported", "claim": "C is D.", "evidence": ["C is E.", "z"], "supporting_sentences": []},
        {"label": "partially_supported", "claim": "F.", "evidence": ["F!"], "supporting_sentences": [[0]]},
    ]
    path = tmp_path / "wice.jsonl"
    path.write_text("\n".join(map(json.dumps, rows)))
    claims = load_claims(path)
    assert claims[0].passages == ["A is B indeed."]
    assert claims[1].passages[0].startswith("C is E.")  # no support: the most overlapping sentences
    result = calibrate(lambda claim, passages: claim != "C is D.", claims, "fake", progress=False)
    assert (result.n, result.agreement, result.balanced_accuracy) == (2, 1.0, 1.0)
    assert result.partial_judged_supported == 1.0 and result.partial_n == 1


def test_missing_wice_file_says_where(tmp_path):
    with pytest.raises(FileNotFoundError, match="WiCE data not found"):
        load_claims(tmp_path / "nope.jsonl")
