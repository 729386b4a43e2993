"""The eval harness: labelled examples, systems, the resumable runner, the summary and its report."""
