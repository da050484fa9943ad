"""Progress of the CLI's long work (import, export, re-embedding, graph rebuilds): a bar on
stderr while a person watches a terminal, nothing at all otherwise.

With --json, or when stderr is not a terminal (a pipe, a log file, cron, CI), the bar stays
silent: a script reads only the result, and a log gets no carriage-return noise. The bar is
tqdm's (rate, time left, terminal width handled); stdout stays the command's result, so
`dewee memory export > file.jsonl` shows a bar and writes only the records."""

import sys
from collections.abc import Callable, Iterable, Iterator

from tqdm import tqdm


def shown(*, json_output: bool) -> bool:
    return not json_output and sys.stderr.isatty()


def progress_bar(
    *, total: int | None, unit: str, description: str, json_output: bool
) -> "tqdm[None]":
    """A bar to ``update(n)``; silent (every call a no-op) where no person watches."""
    return tqdm(
        total=total,
        unit=f" {unit}",
        desc=description,
        file=sys.stderr,
        disable=not shown(json_output=json_output),
        dynamic_ncols=True,
        # The result printed after it says what was done: the finished bar goes.
        leave=False,
        mininterval=0.2,
    )


def set_total(bar: "tqdm[None]", total: int) -> None:
    """The work's size, once a service has counted it: shown at once."""
    if bar.total != total:
        bar.total = total
        bar.refresh()


def following(bar: "tqdm[None]") -> Callable[[int, int], None]:
    """A service's ``progress(done, total)`` that moves ``bar``."""

    def progress(done: int, total: int) -> None:
        set_total(bar, total)
        bar.update(done - bar.n)

    return progress


def with_progress[T](
    items: Iterable[T], *, total: int | None, unit: str, description: str, json_output: bool
) -> Iterator[T]:
    """``items``, one by one, with a bar that follows them."""
    with progress_bar(
        total=total, unit=unit, description=description, json_output=json_output
    ) as bar:
        for item in items:
            yield item
            bar.update(1)
