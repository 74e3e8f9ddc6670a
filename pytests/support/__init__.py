"""What the Python suites share (integration/, e2e/, robustness/):

- ports: `free_port()`, `free_port_run(count)`, `accepts(host, port)`.
- waiting: the bounds `WAIT` and `START_WAIT`, and `wait_until(condition)`.
- processes: `stop(proc)` (a signal, then SIGKILL past a bound), `Lines` (a
  child's pipe read line by line, `wait_for` a line), `LoggedProcess` (a child
  whose output goes to a log file, `wait_for` a condition, its log on failure).
- resp: Redis over RESP2: `redis_command(host, port, *args)`, the reply reader
  `read_reply`, the asyncio client `Resp`.

Import from here (`from pytests.support import free_port`); the repository
root must be on sys.path (pytests/integration/helpers.py puts it there).
"""

from pytests.support.ports import accepts, free_port, free_port_run
from pytests.support.processes import Exited, Lines, LoggedProcess, stop
from pytests.support.resp import Resp, RespError, encode, pairs, read_reply, redis_command
from pytests.support.waiting import START_WAIT, WAIT, wait_until

__all__ = ["START_WAIT", "WAIT", "Exited", "Lines", "LoggedProcess", "Resp", "RespError", "accepts", "encode",
           "free_port", "free_port_run", "pairs", "read_reply", "redis_command", "stop", "wait_until"]
