"""Replaying the loop without the LM: record each LM step once, then re-run the gate under other thresholds."""
