"""The benchmark data: generating it with gen.py (once), and the facts the measurements need.

Times are handled as epoch milliseconds; engines.py writes them in each peer's form, Dataset.iso
in the form xs takes on its command line.
"""
import hashlib
import random
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

# gen.py arguments per mode, and the md5 of the files they produce (full: shared/bench/README.md).
GEN_MODES = {
    "full": ([], {"trades": "76e4cb2475aff6fb2637d12fa8244f95",
                  "sensor": "8efc09d7f626116d01aa5c12a7b364df"}),
    "quick": (["--trades-days", "2", "--sensor-days", "3"],
              {"trades": "f80234913cc3b1f4c346f63e4badaf76",
               "sensor": "97f71e7999e5012e2f2a1a92cb497287"}),
}

# What is queried in each file: the "range → CSV" days [from, to) and whether the VWAP op applies.
QUERIES = {
    "trades": {"time_format": "epoch_ms", "range_days": ("2021-01-02", "2021-01-03"),
               "aggregate": True},
    "sensor": {"time_format": "iso_s", "range_days": ("2021-01-01", "2021-02-01"),
               "aggregate": False},
}
# The CLI lookup reads the first row at or after this instant (so it exists in both modes).
LOOKUP_FROM = "2021-01-02T12:00:00Z"


def iso_to_ms(text):
    instant = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (instant - EPOCH) // timedelta(milliseconds=1)


def parse_time(field, time_format):
    return int(field) if time_format == "epoch_ms" else iso_to_ms(field)


def days_to_ms(days):
    """("2021-01-02", "2021-01-03") -> the epoch ms of those midnights (UTC)."""
    return tuple(iso_to_ms(day + "T00:00:00Z") for day in days)


def ms_to_iso(ms, timespec):
    """'2021-01-02T12:00:00.123Z' (timespec 'milliseconds') or '…12:00:00Z' ('seconds')."""
    instant = EPOCH + timedelta(milliseconds=ms)
    return instant.isoformat(timespec=timespec).replace("+00:00", "Z")


@dataclass(frozen=True)
class Dataset:
    """One CSV file, what is queried in it, and the counts measured on it."""
    name: str
    csv: Path
    time_format: str            # "epoch_ms" (trades) or "iso_s" (sensor: ISO-8601, seconds, Z)
    range_days: tuple           # ("2021-01-02", "2021-01-03"): the range op's [from, to)
    aggregate: bool             # whether the 1-minute sum + VWAP op applies
    rows: int
    csv_bytes: int
    range_rows: int             # rows inside range_days
    lookup_ms: int              # an existing timestamp, read by the CLI lookups

    @property
    def range_ms(self):
        return days_to_ms(self.range_days)

    def iso(self, ms):
        """The time as xs takes it on its command line."""
        return ms_to_iso(ms, "milliseconds" if self.time_format == "epoch_ms" else "seconds")

    def sample_times(self, count, seed=1):
        """`count` existing timestamps, drawn at random (seeded) through random byte offsets."""
        rnd = random.Random(seed)
        times = []
        with open(self.csv, "rb") as f:
            header_len = len(f.readline())
            while len(times) < count:
                f.seek(rnd.randrange(header_len, self.csv_bytes))
                f.readline()  # the rest of the line the offset fell into
                line = f.readline()
                if line:
                    times.append(parse_time(line.split(b",", 1)[0].decode(), self.time_format))
        return times


def md5(path):
    digest = hashlib.md5()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 24):
            digest.update(chunk)
    return digest.hexdigest()


def md5s(data_dir, names):
    return {name: md5(data_dir / f"{name}.csv") if (data_dir / f"{name}.csv").exists() else None
            for name in names}


def ensure_data(mode, gen_py, data_dir, log):
    """Generates the mode's files into data_dir unless their md5 already match; returns the md5s.
    Reading the files for the md5 also leaves them in the page cache for the imports."""
    gen_args, expected = GEN_MODES[mode]
    actual = md5s(data_dir, expected)
    if actual != expected:
        log(f"generating {mode} data into {data_dir} with {gen_py}")
        subprocess.run([sys.executable, str(gen_py), "--out", str(data_dir), *gen_args],
                       check=True)
        actual = md5s(data_dir, expected)
        if actual != expected:
            log(f"WARNING: md5 {actual} differ from the expected {expected}: figures will not "
                "compare with shared/bench/README.md")
    return {"md5": actual, "md5_expected": expected}


def load(name, data_dir):
    """Scans data_dir/NAME.csv once for its counts and returns its Dataset."""
    query = QUERIES[name]
    csv = data_dir / f"{name}.csv"
    rows, range_rows, lookup_ms = _scan(csv, query["time_format"], days_to_ms(query["range_days"]),
                                        iso_to_ms(LOOKUP_FROM))
    return Dataset(name, csv, query["time_format"], query["range_days"], query["aggregate"],
                   rows, csv.stat().st_size, range_rows, lookup_ms)


def _scan(csv, time_format, range_ms, lookup_from_ms):
    """(rows, rows in [range_ms), first timestamp at or after lookup_from_ms) of a CSV file."""
    lo, hi = range_ms
    rows = range_rows = 0
    lookup_ms = None
    with open(csv) as f:
        next(f)
        for line in f:
            ms = parse_time(line[:line.index(",")], time_format)
            rows += 1
            range_rows += lo <= ms < hi
            if lookup_ms is None and ms >= lookup_from_ms:
                lookup_ms = ms
    return rows, range_rows, lookup_ms
