"""API models as data: the effect vocabulary and the model files read into what the evaluator asks."""
