"""The experience bank: trajectories mined by rewinding strong kernels (`mine.py`), stored and validated
(`store.py`), and retrieved for the kernel at hand (`suggest.py`)."""
