"""The card's kernel-busy fraction over a time span, sampled by nvidia-smi in the background.

`nvidia-smi --query-gpu=timestamp,utilization.gpu --format=csv,noheader,nounits -lms 100` prints,
every 100 ms, the percentage of the driver's last sample period during which one or more kernels
ran on the card (NVIDIA's definition of utilization.gpu: time with a kernel resident, not how
many SMs it keeps busy). The mean of the samples that fall in a span is the span's kernel-busy
fraction, to within the driver's sample period (1/6 s to 1 s, by card).
"""

from __future__ import annotations

import datetime
import shutil
import subprocess
import tempfile
from pathlib import Path

QUERY = "timestamp,utilization.gpu"
METHOD = f"nvidia-smi --query-gpu={QUERY} --format=csv,noheader,nounits -lms 100"


class Sampler:
    """A background nvidia-smi writing samples to a file; `stop()` ends it and parses them.

    Where nvidia-smi is not on the PATH, or fails to start, `samples` stays empty and `why`
    says so."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []  # (time.time(), percent)
        self.why: str | None = None
        self.proc: subprocess.Popen | None = None
        self.log = None
        smi = shutil.which("nvidia-smi")
        if smi is None:
            self.why = "nvidia-smi not found"
            return
        self.log = tempfile.NamedTemporaryFile("w+", suffix=".csv", delete=False)
        try:
            self.proc = subprocess.Popen(
                [smi, f"--query-gpu={QUERY}", "--format=csv,noheader,nounits", "-lms", "100"],
                stdout=self.log,
                stderr=subprocess.DEVNULL,
            )
        except OSError as exc:
            self.why = f"nvidia-smi did not start ({exc})"

    def stop(self) -> list[tuple[float, float]]:
        """End the sampler (the process this object started) and return its samples."""
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log is not None:
            self.log.close()
            text = Path(self.log.name).read_text()
            Path(self.log.name).unlink(missing_ok=True)
            self.samples = parse(text)
            if not self.samples and self.why is None:
                self.why = "nvidia-smi gave no samples"
        return self.samples


def parse(text: str) -> list[tuple[float, float]]:
    """(seconds since the epoch, percent) of each 'YYYY/MM/DD HH:MM:SS.fff, P' line (local time,
    as nvidia-smi prints it); lines of another form are skipped."""
    out = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 2:
            continue
        try:
            when = datetime.datetime.strptime(parts[0], "%Y/%m/%d %H:%M:%S.%f")
            out.append((when.timestamp(), float(parts[1])))
        except ValueError:
            continue
    return out


def busy(samples: list[tuple[float, float]], start: float, end: float) -> dict | None:
    """Mean utilization (a fraction) of the samples in [start, end] and how many there were;
    None when no sample falls in the span."""
    inside = [p for t, p in samples if start <= t <= end]
    if not inside:
        return None
    return {"fraction": sum(inside) / len(inside) / 100, "samples": len(inside)}


def active_span(samples: list[tuple[float, float]]) -> tuple[float, float] | None:
    """From the first to the last sample with a kernel running (None when none had one)."""
    active = [t for t, p in samples if p > 0]
    return (active[0], active[-1]) if active else None
