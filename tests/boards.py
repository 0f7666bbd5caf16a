"""The boards, read from boards/<name>/board.mk: the one list of boards (the Makefile, tpu and the
tests all ask that folder). A board.mk is make syntax; the few facts the tests need are plain
`BOARD_X := value` lines, read here without running make."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Board:
    name: str
    arch: str                      # BOARD_ARCH: aarch64, riscv64 or host
    runs_in_qemu: bool             # has a BOARD_QEMU command line
    core_counts: tuple[int, ...]   # BOARD_CORES_VALID

    @property
    def fixed_cores(self) -> int | None:
        """The one core count of a board that has only one (raspi3b: 4), else None."""
        return self.core_counts[0] if len(self.core_counts) == 1 else None


def _variables(text: str) -> dict[str, str]:
    return {match[1]: match[2].strip() for match in re.finditer(r"^(BOARD_[A-Z_]+)[ \t]*[:?]?=[ \t]*(.*)$", text, re.M)}


def _core_counts(text: str) -> tuple[int, ...]:
    counts: list[int] = []
    for word in text.split():
        low, _, high = word.partition("..")
        counts += range(int(low), int(high) + 1) if high else [int(low)]
    return tuple(counts)


def load_boards(root: Path = REPO_ROOT) -> tuple[Board, ...]:
    boards = []
    for path in sorted((root / "boards").glob("*/board.mk")):
        variables = _variables(path.read_text())
        boards.append(Board(path.parent.name, variables.get("BOARD_ARCH", ""), "BOARD_QEMU" in variables,
                            _core_counts(variables.get("BOARD_CORES_VALID", ""))))
    return tuple(boards)


BOARDS = load_boards()
NAMES = tuple(board.name for board in BOARDS)
QEMU_NAMES = tuple(board.name for board in BOARDS if board.runs_in_qemu)
FIXED_CORES = {board.name: board.fixed_cores for board in BOARDS if board.fixed_cores}
