"""What a quarantine found: each step's result, printed and as JUnit XML."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .._text import xml_text

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

STEP_TITLES = (
    "the bot starts",
    "it answers the first exchange correctly",
    "it plays {n} matches against the sample bots in every seat without a fault",
    "it plays several matches in one process",
    "it stays within its time",
    "it exits when told",
    "it leaves no process behind",
    "it beats a random bot",
)
STEPS = len(STEP_TITLES)

PASS, FAIL, SKIP, INFO = "PASS", "FAIL", "SKIP", "INFO"


@dataclass(slots=True)
class StepResult:
    number: int
    title: str
    status: str  # PASS, FAIL, SKIP or INFO
    summary: str = ""
    details: list[str] = field(default_factory=list)
    duration: float = 0.0

    def line(self) -> str:
        text = f"step {self.number}/{STEPS} {self.status} {self.title}"
        return f"{text}: {self.summary}" if self.summary else text


@dataclass(slots=True)
class QuarantineReport:
    game: str
    bot: str
    seed: str
    timeout: float
    matches: int
    require_win: bool
    steps: list[StepResult] = field(default_factory=list)
    duration: float = 0.0
    #: the game's own code failed during a step: the bot was not judged (that step is a FAIL
    #: all the same: a check that cannot run is never a pass)
    game_error: str | None = None

    @property
    def passed(self) -> bool:
        return not any(s.status == FAIL for s in self.steps)

    @property
    def failed_step(self) -> StepResult | None:
        return next((s for s in self.steps if s.status == FAIL), None)


def junit_tree(report: QuarantineReport) -> ET.ElementTree:
    """One <testsuite> in <testsuites>; one <testcase> per step."""
    import xml.etree.ElementTree as ET  # a JUnit file is asked for rarely

    # A step the game's own failure stopped is a JUnit error (the check broke), not a failure of the bot.
    errors = int(report.game_error is not None)
    failures = sum(s.status == FAIL for s in report.steps) - errors
    skipped = sum(s.status == SKIP for s in report.steps)
    counts = {
        "tests": str(len(report.steps)),
        "failures": str(failures),
        "errors": str(errors),
        "skipped": str(skipped),
        "time": f"{report.duration:.3f}",
    }
    x = xml_text  # every value may quote the bot: no character XML 1.0 forbids
    root = ET.Element("testsuites", {"name": "arena quarantine", **counts})
    suite = ET.SubElement(root, "testsuite", {
        "name": x(f"quarantine {report.game}: {report.bot}"),
        "package": x(f"arena.quarantine.{report.game}"),
        "id": "0",
        "hostname": x(socket.gethostname() or "localhost"),
        "timestamp": datetime.now().strftime("%Y-%m-%dT%H:%M:%S"),
        **counts,
    })
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("game", report.game), ("bot", report.bot), ("seed", str(report.seed)),
        ("timeout", f"{report.timeout:g}"), ("matches", str(report.matches)),
        ("require_win", str(report.require_win).lower()),
    ):
        ET.SubElement(props, "property", {"name": name, "value": x(value)})
    for step in report.steps:
        case = ET.SubElement(suite, "testcase", {
            "classname": x(f"arena.quarantine.{report.game}"),
            "name": x(f"step {step.number}: {step.title}"),
            "time": f"{step.duration:.3f}",
        })
        if step.status == FAIL:
            broke = report.game_error is not None and step is report.failed_step
            failure = ET.SubElement(case, "error" if broke else "failure", {
                "message": x(step.summary or step.title), "type": "GameError" if broke else "QuarantineFailure"})
            failure.text = x("\n".join([step.line(), *step.details]))
        elif step.status == SKIP:
            ET.SubElement(case, "skipped", {"message": x(step.summary)})
        else:
            out = ET.SubElement(case, "system-out")
            out.text = x("\n".join([step.line(), *step.details]))
    ET.SubElement(suite, "system-out").text = x(
        f"arena quarantine {report.game} {report.bot} --seed {report.seed}: "
        + ("PASSED" if report.passed else "FAILED")
    )
    ET.SubElement(suite, "system-err").text = ""
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(report: QuarantineReport, path: Path) -> None:
    junit_tree(report).write(path, encoding="utf-8", xml_declaration=True)
