"""The model's half of the kernel optimiser: an OpenAI-compatible client (`client.py`), the prompts
(`prompt.py`), the SEARCH/REPLACE answer format (`blocks.py`), one verified rewrite per motif (`rewrite.py`) and
the evolution of the tiling function (`evolve.py`). Nothing a model writes reaches the user's files unverified."""
