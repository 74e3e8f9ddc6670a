"""Tandem's Python tests (the Swift ones are in Tests/; this folder is named
apart so that the two never merge on a case-insensitive disk).

- integration/: pytest and websockets against the real `tandem` binary.
- e2e/: two headless Chromiums (Selenium) against the real server.
- robustness/: a cluster in network namespaces under faults, and its history checker.
- support/: what all three share: free ports, child processes, waits, Redis over RESP.
"""
