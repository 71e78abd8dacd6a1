"""pytest plugin (``-p gw_no_skip``): a skipped test fails the run.

The project's rule is that a missing dependency (server, library, package) is a failure,
never a silent skip. Skips are still listed with their reasons (``-rs``); this plugin then
turns the session's exit status into a failure when any test was skipped.
"""

from __future__ import annotations

import pytest

_skipped: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        _skipped.append(report.nodeid)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    # A module-level skip (pytest.importorskip, pytest.skip(allow_module_level=True)).
    if report.skipped:
        _skipped.append(report.nodeid)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _skipped and exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if _skipped:
        terminalreporter.write_line(
            f"gw_no_skip: {len(_skipped)} skipped test(s) count as failures: " + ", ".join(_skipped),
            red=True)
