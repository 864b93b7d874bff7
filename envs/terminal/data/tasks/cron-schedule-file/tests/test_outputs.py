"""Parses /app/crontab with a small standard cron parser and compares each job's firing times in
2024 with the schedule that /app/jobs.md describes."""

import datetime

import pytest

MONTHS = {m: i for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}
DAYS = {d: i for i, d in enumerate("sun mon tue wed thu fri sat".split())}


def parse_field(text: str, lo: int, hi: int, names: dict[str, int]) -> set[int]:
    values: set[int] = set()
    for part in text.lower().split(","):
        base, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        assert step >= 1, part
        if base == "*":
            start, end = lo, hi
        elif "-" in base:
            a, b = base.split("-")
            start, end = int(names.get(a, a) if a in names else a), int(names.get(b, b) if b in names else b)
        else:
            start = int(names[base]) if base in names else int(base)
            end = hi if step_text else start
        if names is DAYS and end == 7:
            end = 7
        assert lo <= start <= end <= (7 if names is DAYS else hi), part
        values.update(range(start, end + 1, step))
    if names is DAYS and 7 in values:
        values.discard(7)
        values.add(0)
    return values


class Entry:
    def __init__(self, line: str):
        fields = line.split(None, 5)
        assert len(fields) == 6, line
        self.minute = parse_field(fields[0], 0, 59, {})
        self.hour = parse_field(fields[1], 0, 23, {})
        self.dom = parse_field(fields[2], 1, 31, {})
        self.month = parse_field(fields[3], 1, 12, MONTHS)
        self.dow = parse_field(fields[4], 0, 6, DAYS)
        self.dom_star = fields[2].startswith("*")
        self.dow_star = fields[4].startswith("*")
        self.command = fields[5].strip()

    def fires(self, t: datetime.datetime) -> bool:
        if t.minute not in self.minute or t.hour not in self.hour or t.month not in self.month:
            return False
        dom_ok = t.day in self.dom
        dow_ok = (t.isoweekday() % 7) in self.dow
        if self.dom_star or self.dow_star:
            return dom_ok and dow_ok
        return dom_ok or dow_ok


def load() -> tuple[dict[str, str], dict[str, Entry]]:
    env: dict[str, str] = {}
    entries: dict[str, Entry] = {}
    with open("/app/crontab") as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            head = line.split(None, 1)[0]
            if "=" in head and not head[0].isdigit() and not head.startswith("*"):
                key, _, value = line.partition("=")
                env[key.strip()] = value.strip()
                continue
            entry = Entry(line)
            assert entry.command not in entries, f"two lines for {entry.command}"
            entries[entry.command] = entry
    return env, entries


def weekday(t: datetime.datetime) -> int:
    return t.isoweekday()  # Monday 1 ... Sunday 7


EXPECTED = {
    "/opt/jobs/backup.sh": lambda t: (t.hour, t.minute) == (2, 30),
    "/opt/jobs/sync.sh": lambda t: weekday(t) <= 5 and 8 <= t.hour <= 18 and t.minute % 15 == 0,
    "/opt/jobs/report.sh": lambda t: t.day == 1 and (t.hour, t.minute) == (6, 0),
    "/opt/jobs/cleanup.sh": lambda t: weekday(t) == 7 and (t.hour, t.minute) == (23, 45),
    "/opt/jobs/ping.sh": lambda t: t.minute % 5 == 0,
    "/opt/jobs/quarterly.sh": lambda t: t.month in (1, 4, 7, 10) and t.day == 1 and (t.hour, t.minute) == (0, 0),
    "/opt/jobs/payroll.sh": lambda t: t.day in (15, 28) and (t.hour, t.minute) == (9, 30),
    "/opt/jobs/night-batch.sh": lambda t: weekday(t) <= 5 and t.hour in (22, 23, 0, 1) and t.minute == 10,
}


@pytest.fixture(scope="module")
def crontab():
    return load()


@pytest.fixture(scope="module")
def minutes():
    start = datetime.datetime(2024, 1, 1)
    return [start + datetime.timedelta(minutes=i) for i in range(366 * 24 * 60)]


def test_environment(crontab):
    env, _ = crontab
    assert env.get("MAILTO") in ('""', "''")
    assert env.get("SHELL") == "/bin/bash"


def test_exactly_the_jobs(crontab):
    _, entries = crontab
    assert sorted(entries) == sorted(EXPECTED)


@pytest.mark.parametrize("command", sorted(EXPECTED))
def test_schedule(crontab, minutes, command):
    _, entries = crontab
    entry = entries[command]
    want = EXPECTED[command]
    wrong = [t for t in minutes if entry.fires(t) != want(t)]
    assert not wrong, f"{command}: first difference at {wrong[0]:%a %Y-%m-%d %H:%M}"
