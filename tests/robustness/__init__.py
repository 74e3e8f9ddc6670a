"""The robustness suite (tests/robustness): workload, faults, history checker."""
