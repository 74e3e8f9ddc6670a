"""The robustness suite (pytests/robustness): workload, faults, history checker."""
