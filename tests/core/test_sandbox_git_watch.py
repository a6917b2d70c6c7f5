"""Finding new git dirs between two passes, from folder stamps (real folders, no git)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pitui.core import sandbox_git_watch
from pitui.core.sandbox_git_watch import GitDir, GitWatch


def _git_dir(folder: Path) -> None:
    for name in ("objects", "refs"):
        (folder / name).mkdir(parents=True)
    (folder / "HEAD").write_text("ref: refs/heads/main\n")


def _paths(found: list[GitDir]) -> set[str]:
    return {git.path for git in found}


def test_what_exists_at_the_first_pass_is_the_users_and_listed_to_protect(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _git_dir(tmp_path / "vendor" / "lib" / ".git")
    _git_dir(tmp_path / "embedded")
    watch = GitWatch(tmp_path)
    nested = watch.before_call()
    assert set(nested) == {str(tmp_path / "vendor" / "lib" / ".git"), str(tmp_path / "embedded")}
    assert watch.after_call() == []


def test_a_git_dir_made_during_a_call_is_found_however_deep(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    watch = GitWatch(tmp_path)
    watch.before_call()
    _git_dir(tmp_path / "a" / "b" / "c" / "d" / ".git")
    _git_dir(tmp_path / "a" / "bare")
    (tmp_path / "a" / "b" / ".git").write_text("gitdir: ../../elsewhere\n")
    found = watch.after_call()
    assert _paths(found) == {
        str(tmp_path / "a" / "b" / "c" / "d" / ".git"),
        str(tmp_path / "a" / "bare"),
        str(tmp_path / "a" / "b" / ".git"),
    }
    assert [git.bare for git in found if git.folder.endswith("bare")] == [True]


def test_a_folder_that_becomes_a_bare_repository_is_found(tmp_path: Path) -> None:
    (tmp_path / "sub" / "objects").mkdir(parents=True)
    (tmp_path / "sub" / "refs").mkdir()
    watch = GitWatch(tmp_path)
    watch.before_call()
    (tmp_path / "sub" / "HEAD").write_text("ref: refs/heads/main\n")
    assert _paths(watch.after_call()) == {str(tmp_path / "sub")}


def test_what_the_user_makes_between_calls_is_taken_in_not_judged(tmp_path: Path) -> None:
    watch = GitWatch(tmp_path)
    watch.before_call()
    assert watch.after_call() == []
    _git_dir(tmp_path / "clone" / ".git")  # the user's own !git clone
    assert watch.before_call() == (str(tmp_path / "clone" / ".git"),)
    assert watch.after_call() == []


def test_a_kept_git_dir_that_changes_later_is_judged_again(tmp_path: Path) -> None:
    watch = GitWatch(tmp_path)
    watch.before_call()
    _git_dir(tmp_path / "lib" / ".git")
    (found,) = watch.after_call()
    watch.keep(found)
    watch.before_call()
    (tmp_path / "lib" / ".git" / "config").write_text("[core]\n\tfsmonitor = x\n")
    assert watch.after_call() == [found]


def test_overlapping_calls_leave_nothing_to_the_users_pass(tmp_path: Path) -> None:
    watch = GitWatch(tmp_path)
    watch.before_call()  # call A
    _git_dir(tmp_path / "by-a" / ".git")
    watch.before_call(take_in=False)  # call B starts while A runs: A's work is not taken in
    _git_dir(tmp_path / "by-b" / ".git")
    found_a = watch.after_call()
    assert _paths(found_a) == {str(tmp_path / "by-a" / ".git"), str(tmp_path / "by-b" / ".git")}
    assert watch.after_call() == []


def test_forgotten_and_vanished_folders_are_dropped(tmp_path: Path) -> None:
    (tmp_path / "gone" / "deep").mkdir(parents=True)
    watch = GitWatch(tmp_path)
    watch.before_call()
    _git_dir(tmp_path / "bare")
    (found,) = watch.after_call()
    os.unlink(tmp_path / "bare" / "HEAD")  # what quarantine does to a bare one
    watch.forget(found)
    shutil.rmtree(tmp_path / "gone")
    assert watch.before_call() == ()
    assert watch.after_call() == []
    assert not any("gone" in folder for folder in watch._folders)


def test_a_huge_tree_is_watched_in_part_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pitui.core.sandbox_git import check_new_git_dirs

    monkeypatch.setattr(sandbox_git_watch, "MAX_FOLDERS", 5)
    for index in range(10):
        (tmp_path / f"d{index}").mkdir()
    watch = GitWatch(tmp_path)
    watch.before_call()
    note = check_new_git_dirs(watch)
    assert not watch.complete and note is not None and "more than" in note
    watch.before_call()
    assert check_new_git_dirs(watch) is None  # said once


def test_a_watch_at_its_folder_limit_still_sees_the_folders_it_knows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox_git_watch, "MAX_FOLDERS", 5)
    for index in range(10):
        (tmp_path / f"d{index}").mkdir()
    watch = GitWatch(tmp_path)
    watch.before_call()
    assert not watch.complete
    _git_dir(tmp_path / ".git")  # made at the top, which the watch knows
    assert _paths(watch.after_call()) == {str(tmp_path / ".git")}
