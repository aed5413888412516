"""kg.forked: pieces of a serial stage in forked children give what one process gives, and a
child that fails costs time, never the result."""

from __future__ import annotations

import os

import pytest

from kg.forked import Pending, fork_map, split


def test_split_covers_every_index_once_in_order():
    for n in (0, 1, 2, 7, 100):
        for parts in (1, 2, 3, 8):
            pieces = split(n, parts)
            assert [i for piece in pieces for i in piece] == list(range(n))
            assert all(len(piece) for piece in pieces) or n == 0
            assert len(pieces) == max(1, min(parts, n))


def test_pieces_run_in_other_processes_and_come_back_in_order():
    parent = os.getpid()
    found = fork_map(lambda r: (os.getpid(), [i * i for i in r]), split(9, 3), processes=3)
    assert [squares for _, squares in found] == [[0, 1, 4], [9, 16, 25], [36, 49, 64]]
    pids = [pid for pid, _ in found]
    assert pids[0] == parent and len(set(pids)) == 3
    # one process: all of them here
    assert {pid for pid, _ in fork_map(lambda r: (os.getpid(), 0), split(9, 3), processes=1)} == {
        parent
    }


def test_a_piece_whose_child_fails_is_computed_here():
    parent = os.getpid()

    def piece(r: range) -> list[int]:
        if os.getpid() != parent and r.start:
            os._exit(3)  # a child killed half-way (out of memory, a signal)
        return list(r)

    assert fork_map(piece, split(6, 2), processes=2) == [[0, 1, 2], [3, 4, 5]]


def test_an_error_in_a_piece_is_raised_as_without_children():
    def piece(r: range) -> int:
        if r.start:
            raise ValueError(f"bad piece {r.start}")
        return 0

    with pytest.raises(ValueError, match="bad piece 3"):
        fork_map(piece, split(6, 2), processes=2)


def test_pending_computes_in_a_child_meanwhile_or_here():
    parent = os.getpid()
    job = Pending(lambda: (os.getpid(), sum(range(1000))), processes=2)
    pid, total = job.result()
    assert total == 499500 and pid != parent
    assert Pending(lambda: os.getpid(), processes=1).result() == parent
    with pytest.raises(RuntimeError, match="already taken"):
        job.result()


def test_a_pending_whose_child_fails_is_computed_here():
    parent = os.getpid()

    def work() -> int:
        if os.getpid() != parent:
            os._exit(9)
        return 7

    assert Pending(work, processes=2).result() == 7
    job = Pending(lambda: 1, processes=2)
    job.cancel()  # a build that failed on the way: the child is stopped, nothing is left
    assert job.result() == 1
