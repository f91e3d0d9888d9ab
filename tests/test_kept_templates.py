"""Templates compiled by one `pbem` process are kept for the next (pbem.views.render): a kept
file that is damaged, or a folder that cannot be written, only means compiling again."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from jinja2 import DictLoader, Environment
from jinja2.bccache import bc_magic

from pbem.views.render import _kept_templates, _KeptTemplates, environment

SOURCE = {"greeting.j2": "Kia ora, {{ name }}!"}


def _said(folder: Path) -> str:
    """The template rendered by a new process's environment keeping compiled ones in `folder`."""
    made = Environment(loader=DictLoader(SOURCE), bytecode_cache=_KeptTemplates(str(folder)))
    return made.get_template("greeting.j2").render(name="Sina")


def test_a_compiled_template_is_kept_and_a_damaged_one_compiled_again(tmp_path: Path) -> None:
    assert _said(tmp_path) == "Kia ora, Sina!"
    (kept,) = tmp_path.iterdir()
    whole = kept.read_bytes()
    assert _said(tmp_path) == "Kia ora, Sina!"  # read from the kept file
    assert kept.read_bytes() == whole
    damaged = (whole[: len(whole) // 2], b"\0" * 64, bc_magic + b"not a pickle")
    for damage in damaged:  # cut short; not Jinja's; Jinja's, then unreadable
        kept.write_bytes(damage)
        assert _said(tmp_path) == "Kia ora, Sina!"
        assert kept.read_bytes() == whole  # written anew


def test_a_folder_that_cannot_be_written_compiles_each_time(tmp_path: Path) -> None:
    folder = tmp_path / "kept"
    folder.mkdir()
    made = Environment(loader=DictLoader(SOURCE), bytecode_cache=_KeptTemplates(str(folder)))
    shutil.rmtree(folder)  # e.g. the temporary folder cleaned while the service runs
    assert made.get_template("greeting.j2").render(name="Sina") == "Kia ora, Sina!"
    assert not folder.exists()


def test_the_mails_templates_are_kept_between_processes() -> None:
    assert isinstance(environment().bytecode_cache, _KeptTemplates)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a folder another user's needs root")
def test_a_folder_another_user_made_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone else on the machine made Jinja's folder for this user first (to feed it
    compiled code): it is refused, and every template is compiled in the process."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    planted = tmp_path / f"_jinja2-cache-{os.getuid()}"
    planted.mkdir(mode=0o700)
    os.chown(planted, 65534, 65534)  # nobody's
    assert _kept_templates() is None
    os.chown(planted, os.getuid(), os.getgid())  # the user's own: used
    assert isinstance(_kept_templates(), _KeptTemplates)
