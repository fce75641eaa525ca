"""Cron schedules as the reference's CronJob controller reads them (robfig/cron's standard parser): five fields
(minute hour day-of-month month day-of-week) with lists, ranges, steps, `*`/`?` and month/day names, the
descriptors @yearly/@annually/@monthly/@weekly/@daily/@midnight/@hourly and `@every <duration>`, and an optional
`CRON_TZ=`/`TZ=` prefix."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ...durations import parse_duration

_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTHS = {m: i + 1 for i, m in enumerate(_MONTH_NAMES)}
_DAYS = {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))}
#: (low, high, names) of each field
_BOUNDS: tuple[tuple[int, int, dict[str, int]], ...] = (
    (0, 59, {}),
    (0, 23, {}),
    (1, 31, {}),
    (1, 12, _MONTHS),
    (0, 6, _DAYS),
)
_DESCRIPTORS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}


class ScheduleError(ValueError):
    pass


def _number(text: str, names: dict[str, int]) -> int:
    if text.lower() in names:
        return names[text.lower()]
    if not text.isdigit():
        raise ScheduleError(f"failed to parse int from {text}")
    return int(text)


def _field(text: str, low: int, high: int, names: dict[str, int]) -> tuple[frozenset[int], bool]:
    """The values of one field, and whether it starts with `*` (the day fields then AND instead of OR)."""
    values: set[int] = set()
    for part in text.split(","):
        span, _, step_text = part.partition("/")
        step = _number(step_text, {}) if step_text else 1
        if step <= 0:
            raise ScheduleError(f"step of range should be a positive number: {part}")
        if span in ("*", "?"):
            start, end = low, high
        elif "-" in span:
            a, b = span.split("-", 1)
            start, end = _number(a, names), _number(b, names)
        else:
            start = _number(span, names)
            end = high if step_text else start
        if start < low or end > high or start > end:
            raise ScheduleError(f"beginning of range ({start}) beyond end of range ({end}): {part}")
        values.update(range(start, end + 1, step))
    return frozenset(values), text.startswith(("*", "?"))


@dataclass(frozen=True)
class Schedule:
    minutes: frozenset[int] = frozenset()
    hours: frozenset[int] = frozenset()
    days: frozenset[int] = frozenset()
    months: frozenset[int] = frozenset()
    weekdays: frozenset[int] = frozenset()
    #: either day field starts with `*`: both must match (else either does)
    days_and: bool = True
    every: timedelta | None = None
    zone: tzinfo | None = None

    def _day_matches(self, t: datetime) -> bool:
        dom, dow = t.day in self.days, (t.isoweekday() % 7) in self.weekdays
        return dom and dow if self.days_and else dom or dow

    def next(self, after: datetime) -> datetime:
        """The first activation strictly after `after` (aware datetimes)."""
        if self.every is not None:
            return after.replace(microsecond=0) + self.every
        zone = self.zone or after.tzinfo
        t = after.astimezone(zone).replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = t + timedelta(days=366 * 5)
        while t < limit:
            if t.month not in self.months:
                t = (t.replace(day=1, hour=0, minute=0) + timedelta(days=32)).replace(day=1)
                continue
            if not self._day_matches(t):
                t = t.replace(hour=0, minute=0) + timedelta(days=1)
                continue
            if t.hour not in self.hours:
                t = t.replace(minute=0) + timedelta(hours=1)
                continue
            if t.minute not in self.minutes:
                t += timedelta(minutes=1)
                continue
            return t.astimezone(after.tzinfo)
        raise ScheduleError("the schedule never activates")


def parse(text: str, time_zone: str | None = None) -> Schedule:
    """Parse a CronJob's spec.schedule (and spec.timeZone); raises ScheduleError."""
    text = text.strip()
    zone: tzinfo | None = None
    name = time_zone
    if text.startswith(("CRON_TZ=", "TZ=")):
        prefix, _, text = text.partition(" ")
        name = prefix.split("=", 1)[1]
    if name:
        try:
            zone = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError) as err:
            raise ScheduleError(f"provided bad location {name}: {err}") from err
    text = text.strip()
    if text.startswith("@every "):
        try:
            every = timedelta(seconds=parse_duration(text[len("@every ") :].strip()))
        except ValueError as err:
            raise ScheduleError(f"failed to parse duration {text}: {err}") from err
        if every < timedelta(seconds=1):
            every = timedelta(seconds=1)
        return Schedule(every=every, zone=zone)
    if text.startswith("@"):
        if text not in _DESCRIPTORS:
            raise ScheduleError(f"unrecognized descriptor: {text}")
        text = _DESCRIPTORS[text]
    fields = text.split()
    if len(fields) != 5:
        raise ScheduleError(f"expected exactly 5 fields, found {len(fields)}: {text}")
    parsed = [_field(f, *bounds) for f, bounds in zip(fields, _BOUNDS)]
    return Schedule(
        minutes=parsed[0][0],
        hours=parsed[1][0],
        days=parsed[2][0],
        months=parsed[3][0],
        weekdays=parsed[4][0],
        days_and=parsed[2][1] or parsed[4][1],
        zone=zone,
    )
