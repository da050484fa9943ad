"""What a background pass reports: how many memories it touched, its counts, and the same
split per workspace (a workspace's key sees only its own share of a run)."""

from collections import defaultdict
from dataclasses import dataclass, field


@dataclass
class PassResult:
    touched: int = 0
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    by_workspace: dict[int, dict[str, int]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(int))
    )

    def add(self, workspace_id: int, *, touched: int = 0, **counts: int) -> None:
        """Count ``touched`` memories and any named counts for one workspace."""
        self.touched += touched
        share = self.by_workspace[workspace_id]
        if touched:
            share["touched"] += touched
        for name, value in counts.items():
            self.counts[name] += value
            share[name] += value

    def as_dict(self) -> dict[str, object]:
        return {
            "touched": self.touched,
            "counts": dict(self.counts),
            "by_workspace": {str(k): dict(v) for k, v in self.by_workspace.items()},
        }
